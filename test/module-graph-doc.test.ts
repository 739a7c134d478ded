// Rule (issue 29, point 14): the module-graph paragraph of docs/ARCHITECTURE.md ("The module graph has no loop …")
// is what `node scripts/module-graph.mjs --stats` writes from the real imports: a link added or removed between
// modules fails here until the paragraph is written again (paste the command's output over it).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

test('docs/ARCHITECTURE.md: the module-graph paragraph is exactly `node scripts/module-graph.mjs --stats`', () => {
  const generated = execFileSync(process.execPath, ['scripts/module-graph.mjs', '--stats'], { encoding: 'utf8' }).trimEnd();
  const doc = readFileSync('docs/ARCHITECTURE.md', 'utf8');
  const start = doc.indexOf('The module graph has no loop');
  assert.notEqual(start, -1, 'docs/ARCHITECTURE.md has no paragraph starting "The module graph has no loop"');
  const end = doc.indexOf('\n\n', start);
  assert.equal(
    doc.slice(start, end === -1 ? undefined : end),
    generated,
    'run `node scripts/module-graph.mjs --stats` and paste its output over the paragraph',
  );
});

test('scripts/module-graph.mjs passes: no module loop, bench/ and test/helpers/ through index.ts, the console imports no server file', () => {
  const out = execFileSync(process.execPath, ['scripts/module-graph.mjs'], { encoding: 'utf8' });
  assert.match(
    out,
    /^✔ no loop between module folders; queries only in repositories and db\/; bench\/ and test\/helpers\/ through index\.ts; the console and the portal pages import no server file\n$/,
  );
});
