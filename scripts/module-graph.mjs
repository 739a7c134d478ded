#!/usr/bin/env node
// The walls between modules, checked by `npm run check:deps` after dependency-cruiser's file rules:
// - a loop between module folders (src/modules/<kind>/<name>/) fails, even when no single file is in a cycle;
// - a query built outside a repository (dependency-cruiser sees imports, not calls on a handle) fails;
// - bench/ and test/helpers/ reach a module through its index.ts only, like the rest of src/ (EXCEPTIONS
//   below name the few files that may reach further, each with its reason);
// - the admin console (web/console) and the portal's pages (web/portal) import no server file: only their own
//   files, the shared web/kit and src/shared/, the data both sides read (e.g. the audit event types), which itself imports nothing
//   outside src/shared/.
// `node scripts/module-graph.mjs --stats` prints the module-graph paragraph of docs/ARCHITECTURE.md, made
// from the real graph (test/module-graph-doc.test.ts keeps the two the same).
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Files of bench/ and test/helpers/ that may import a module's inner file, by file, then target, with the reason. */
const EXCEPTIONS = {
  'bench/naive-server.ts': {
    'src/modules/resources/directory/clients.schemas.ts':
      'the baseline server answers the same client shape (Client), which the directory does not export for other modules',
    'src/modules/resources/billing/invoices.schemas.ts':
      'the baseline server answers the same page of invoices (Invoice), which billing does not export for other modules',
    'src/modules/resources/billing/terms.ts':
      "the baseline server reads an invoice's stored terms as the server does (billingFields, a pure function of the row)",
    'src/modules/resources/messages/messages.schemas.ts':
      'the baseline server answers the same page of messages (Message); the messages module exports only its routes',
    'src/modules/resources/files/files.schemas.ts':
      'the baseline server answers the same page of files (FileObject); the files module exports only its routes and stores',
  },
  'bench/seed-clients.ts': {
    'src/modules/resources/messages/messages.service.ts':
      'seeds channels and messages in bulk through the service; the messages module exports only its routes',
    'src/modules/resources/files/files.service.ts':
      'makes the file channel of the files page through the service; the files module exports only its routes and stores',
  },
  'bench/seed-depth.ts': {
    'src/modules/resources/messages/messages.service.ts':
      'makes the deep channels through the service, as seed-clients.ts; the messages module exports only its routes',
    'src/modules/resources/files/files.service.ts':
      'makes the deep file channels through the service; the files module exports only its routes and stores',
  },
};

const root = fileURLToPath(new URL('..', import.meta.url));
const depcruise = join(root, 'node_modules/.bin/depcruise');
const json = execFileSync(depcruise, ['src', 'bench', 'test/helpers', '--config', '.dependency-cruiser.cjs', '--output-type', 'json'], {
  cwd: root,
  maxBuffer: 1 << 28,
});
const { modules: all } = JSON.parse(json);
const files = all.filter((file) => file.source.startsWith('src/'));
/** A module by its own folder's name (`files`, not `resources/files`): the kind is the folder above it. */
const moduleOf = (path) => /^src\/modules\/[^/]+\/([^/]+)\//.exec(path)?.[1];
const failures = [];

// bench/ and test/helpers/: a module through its index.ts, unless an exception says why not.
for (const file of all.filter((f) => /^(bench|test\/helpers)\//.test(f.source))) {
  for (const { resolved } of file.dependencies) {
    if (moduleOf(resolved) === undefined || resolved.endsWith('/index.ts')) continue;
    if (EXCEPTIONS[file.source]?.[resolved]) continue;
    failures.push(`${file.source} imports ${resolved}: import the module's index.ts (or add an exception with its reason)`);
  }
}
for (const [source, targets] of Object.entries(EXCEPTIONS)) {
  for (const target of Object.keys(targets)) {
    const used = all.some((f) => f.source === source && f.dependencies.some((d) => d.resolved === target));
    if (!used) failures.push(`exception ${source} -> ${target} is no longer needed: remove it`);
  }
}

// The console and src/shared/: relative imports read from the source (the console is bundled by Vite, not cruised).
const IMPORT = /(?:^|[\s;])(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|(?:^|[\s;])import\s*\(?\s*['"]([^'"]+)['"]/g;
function relativeImports(dir) {
  return readdirSync(join(root, dir), { recursive: true })
    .map((f) => join(dir, String(f)))
    .filter((f) => /\.(ts|tsx|js|mjs)$/.test(f))
    .flatMap((f) =>
      [...readFileSync(join(root, f), 'utf8').matchAll(IMPORT)]
        .map((m) => m[1] ?? m[2])
        .filter((spec) => spec.startsWith('.'))
        .map((spec) => ({ from: f, to: normalize(join(dirname(f), spec)) })),
    );
}
const inside = (path, dir) => !relative(dir, path).startsWith('..');
for (const app of ['console', 'portal', 'kit']) {
  for (const { from, to } of relativeImports(`web/${app}`)) {
    if (!inside(to, `web/${app}`) && !(app !== 'kit' && inside(to, 'web/kit')) && !inside(to, 'src/shared'))
      failures.push(`${from} imports ${to}: web/${app} imports no server file (only web/kit and src/shared/)`);
  }
}
for (const { from, to } of relativeImports('src/shared')) {
  if (!inside(to, 'src/shared')) failures.push(`${from} imports ${to}: src/shared/ imports nothing outside itself`);
}

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

// Storage only in repositories: no query is built on a handle elsewhere (db/ and migrations may).
const QUERY = /\.(selectFrom|insertInto|updateTable|deleteFrom|replaceInto|mergeInto)\(/;
const queriesOutside = files
  .map((file) => file.source)
  .filter((path) => /^src\/.*\.ts$/.test(path) && !/\.repository\.ts$|\.test\.ts$|^src\/db\//.test(path))
  .filter((path) => QUERY.test(readFileSync(path, 'utf8')));

for (const loop of loops) failures.push(`modules in a loop: ${loop.join(' ⇄ ')}`);
for (const path of queriesOutside) failures.push(`a query built outside a repository: ${path}`);
if (intoInternals > 0)
  failures.push(`${intoInternals} imports of another module's non-index file (see dependency-cruiser's module-public-face)`);

if (failures.length > 0) {
  for (const failure of failures) console.error(`✘ ${failure}`);
  process.exit(1);
}

if (process.argv.includes('--stats')) console.log(paragraph());
else
  console.log(
    '✔ no loop between module folders; queries only in repositories and db/; bench/ and test/helpers/ through index.ts; the console and the portal pages import no server file',
  );

/** The module-graph paragraph of docs/ARCHITECTURE.md, from the graph: modules grouped by what they read. */
function paragraph() {
  const code = (name) => `\`${name}\``;
  const list = (names) => (names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`);
  const count = [...links.values()].reduce((sum, to) => sum + to.size, 0);
  const groups = new Map(); // "a,b" (what they read) -> modules that read exactly that
  for (const [from, to] of [...links].sort()) {
    const key = [...to].sort().join(',');
    groups.set(key, [...(groups.get(key) ?? []), from]);
  }
  const readers = [...groups]
    .filter(([key]) => key !== '')
    .map(([key, from]) => `${list(from.map(code))} ${from.length === 1 ? 'reads' : 'read'} ${list(key.split(',').map(code))}`);
  const alone = groups.get('') ?? [];
  const text =
    `The module graph has no loop (${links.size} modules, ${count} links; \`node scripts/module-graph.mjs --stats\` ` +
    `writes this paragraph from the imports, and a test keeps it in sync): ${readers.join('; ')}` +
    (alone.length > 0 ? `; ${list(alone.map(code))} read no other module` : '') +
    '. Everything writes audit entries through `src/audit/`, which is why it sits below the modules: the ' +
    'audit-log module (the API over the trail) may then read the directory without a loop.';
  // Wrapped at 110 columns, as the rest of the document.
  const lines = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > 110) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  return [...lines, line].join('\n');
}
