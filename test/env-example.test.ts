// Rule (issue 29, point 15): .env.example names every variable the server reads (src/config.ts, and the two
// `process.env` reads elsewhere in src/: PORTAL_SEED_DEMO, PORTAL_CHECK_JSON_BYTES), and only those, each with its
// comment line; the README's Configuration table names each too; and the example as written is a valid configuration.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadConfig } from '../src/config.js';

const read = (file: string) => readFileSync(file, 'utf8');

/**
 * The variables the server reads: in src/config.ts `env.NAME`, `env['NAME']` and `intVar(env, 'NAME', …)`; anywhere
 * else in src/ (tests aside) `process.env.NAME`.
 */
function variablesRead(): string[] {
  const config = read('src/config.ts');
  const elsewhere = readdirSync('src', { recursive: true })
    .map((f) => join('src', String(f)))
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
    .map(read)
    .join('\n');
  const names = [
    ...[...config.matchAll(/\benv\.([A-Z][A-Z0-9_]*)/g)].map((m) => m[1]),
    ...[...config.matchAll(/\benv\[['"]([A-Z][A-Z0-9_]*)['"]\]/g)].map((m) => m[1]),
    ...[...config.matchAll(/\bintVar\(env, '([A-Z][A-Z0-9_]*)'/g)].map((m) => m[1]),
    ...[...elsewhere.matchAll(/\bprocess\.env\.([A-Z][A-Z0-9_]*)/g)].map((m) => m[1]),
  ];
  return [...new Set(names)].sort();
}

/** The `NAME=value` lines of .env.example, in order, with the comment line above each. */
function exampleEntries(): { name: string; value: string; comment: string }[] {
  const lines = read('.env.example').split('\n');
  return lines.flatMap((line, i) => {
    const m = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(line);
    return m ? [{ name: m[1], value: m[2], comment: lines[i - 1] ?? '' }] : [];
  });
}

test('.env.example names every variable the server reads, and no other, each once with a comment above it', () => {
  const read = variablesRead();
  assert.ok(read.length >= 25, `found the variables the server reads: ${read.join(', ')}`);
  const entries = exampleEntries();
  assert.deepEqual(entries.map((e) => e.name).sort(), read);
  for (const entry of entries) assert.match(entry.comment, /^# \S/, `${entry.name}: its comment line`);
});

test("the README's Configuration table names every variable the server reads", () => {
  const readme = read('README.md');
  const missing = variablesRead().filter((name) => !new RegExp(`^\\| [^|]*\`${name}\`[^|]*\\|`, 'm').test(readme));
  assert.deepEqual(missing, []);
});

test('.env.example as written loads: loadConfig accepts it (empty means unset)', () => {
  const env = Object.fromEntries(exampleEntries().map((e) => [e.name, e.value === '' ? undefined : e.value]));
  const config = loadConfig(env);
  assert.equal(config.port, 8080);
  assert.equal(config.databaseUrl, 'sqlite:./data/portal.db');
  assert.equal(config.adminToken, undefined);
});
