#!/usr/bin/env node
// The `portal` command. Runs the compiled dist/ when it is at least as new as every file of src/
// (`npm run build`, run by `npm start`); otherwise runs src/ through tsx, so a fresh clone needs no build.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const compiled = join(root, 'dist', 'cli', 'main.js');

function distIsFresh() {
  if (!existsSync(compiled)) return false;
  const builtAt = statSync(compiled).mtimeMs;
  const src = join(root, 'src');
  if (!existsSync(src)) return true; // an installed image ships dist/ alone
  return readdirSync(src, { recursive: true }).every((file) => statSync(join(src, String(file))).mtimeMs <= builtAt);
}

let main;
if (distIsFresh()) {
  ({ main } = await import(compiled));
} else {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../src/cli/main.ts'));
}
const code = await main(process.argv.slice(2));
if (code >= 0) process.exit(code);
