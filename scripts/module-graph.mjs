#!/usr/bin/env node
// The walls between modules, checked by `npm run check:deps` after dependency-cruiser's file rules:
// a loop between module folders (src/modules/<name>/) fails, even when no single file is in a cycle.
// a query built outside a repository (dependency-cruiser sees imports, not calls on a handle) fails too.
// `node scripts/module-graph.mjs --stats` also prints the counts quoted in closing notes.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const depcruise = fileURLToPath(new URL('../node_modules/.bin/depcruise', import.meta.url));
const json = execFileSync(depcruise, ['src', '--config', '.dependency-cruiser.cjs', '--output-type', 'json'], {
  maxBuffer: 1 << 28,
});
const { modules: files } = JSON.parse(json);
const moduleOf = (path) => /^src\/modules\/([^/]+)\//.exec(path)?.[1];

const links = new Map(); // module -> modules it imports (tests excluded)
let intoInternals = 0;
for (const file of files) {
  const from = moduleOf(file.source);
  if (from === undefined || file.source.endsWith('.test.ts')) continue;
  if (!links.has(from)) links.set(from, new Set());
  for (const dependency of file.dependencies) {
    const to = moduleOf(dependency.resolved);
    if (to === undefined || to === from) continue;
    links.get(from).add(to);
    if (!dependency.resolved.endsWith('/index.ts')) intoInternals++;
  }
}

// Tarjan's strongly connected components: each one of more than one module is a loop.
const loops = [];
const index = new Map();
const low = new Map();
const stack = [];
let next = 0;
function visit(module) {
  index.set(module, next);
  low.set(module, next++);
  stack.push(module);
  for (const to of links.get(module) ?? []) {
    if (!index.has(to)) visit(to);
    if (stack.includes(to)) low.set(module, Math.min(low.get(module), low.get(to)));
  }
  if (low.get(module) !== index.get(module)) return;
  const component = stack.splice(stack.indexOf(module));
  if (component.length > 1) loops.push(component.sort());
}
for (const module of links.keys()) if (!index.has(module)) visit(module);

if (process.argv.includes('--stats')) {
  const count = [...links.values()].reduce((sum, to) => sum + to.size, 0);
  console.log(`${links.size} modules, ${count} links between them, ${intoInternals} imports of another module's non-index file`);
  for (const [from, to] of [...links].sort()) console.log(`  ${from} -> ${[...to].sort().join(', ') || '(nothing)'}`);
}
// Storage only in repositories: no query is built on a handle elsewhere (db/ and migrations may).
const QUERY = /\.(selectFrom|insertInto|updateTable|deleteFrom|replaceInto|mergeInto)\(/;
const queriesOutside = files
  .map((file) => file.source)
  .filter((path) => /^src\/.*\.ts$/.test(path) && !/\.repository\.ts$|\.test\.ts$|^src\/db\//.test(path))
  .filter((path) => QUERY.test(readFileSync(path, 'utf8')));
for (const path of queriesOutside) console.error(`✘ a query built outside a repository: ${path}`);

if (loops.length > 0 || queriesOutside.length > 0) {
  for (const loop of loops) console.error(`✘ modules in a loop: ${loop.join(' ⇄ ')}`);
  process.exit(1);
}
console.log('✔ no loop between module folders; queries only in repositories and db/');
