// Import rules of src/, checked by `npm run check:deps` (dependency-cruiser).
// Layers, from the bottom: lib/ (a leaf), db/, modules/, plugins/, then app.ts, server.ts and cli/ on top.
// Type-only imports count everywhere (tsPreCompilationDeps), except where a rule says otherwise.

/**
 * A module's schemas file (a module is src/modules/<kind>/<module>/), e.g.
 * src/modules/resources/directory/clients.schemas.ts: db/ may take types from it.
 */
const MODULE_SCHEMAS = '^src/modules/[^/]+/[^/]+/[^/]+\\.schemas\\.ts$';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A cycle of imports (type-only imports count too). Move the shared piece to a module both sides can import.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'module-public-face',
      severity: 'error',
      comment:
        'Another module is reached through its index.ts only (its public face): never its repository, routes, schemas or helpers. Tests may reach further.',
      from: { path: '^src/modules/([^/]+/[^/]+)/', pathNot: '\\.test\\.ts$' },
      to: { path: '^src/modules/[^/]+/[^/]+/', pathNot: ['^src/modules/$1/', '^src/modules/[^/]+/[^/]+/index\\.ts$'] },
    },
    {
      name: 'module-public-face',
      severity: 'error',
      comment: 'app.ts, server.ts, cli/ and plugins/ reach a module through its index.ts only.',
      from: { path: '^src/', pathNot: ['^src/modules/', '\\.test\\.ts$'] },
      to: { path: '^src/modules/[^/]+/[^/]+/', pathNot: '^src/modules/[^/]+/[^/]+/index\\.ts$' },
    },
    {
      name: 'storage-in-repositories',
      severity: 'error',
      comment:
        'Queries are built in repositories only (*.repository.ts), in db/ and in migrations: elsewhere a query handle is a DbHandle (db/database.ts), passed along, never queried.',
      from: { path: '^src/', pathNot: ['\\.repository\\.ts$', '^src/db/', '\\.test\\.ts$'] },
      to: { path: '^node_modules/kysely/' },
    },
    {
      name: 'audit-below-modules',
      severity: 'error',
      comment: 'src/audit/ (the trail every module writes to) imports nothing from src/modules/, src/plugins/ or src/cli/.',
      from: { path: '^src/audit/' },
      to: { path: '^src/(modules|plugins|cli)/' },
    },
    {
      name: 'plugins-not-imported-from-below',
      severity: 'error',
      comment: 'src/plugins/ sits above lib/, modules/ and db/: none of them may import from it.',
      from: { path: '^src/(lib|modules|db)/' },
      to: { path: '^src/plugins/' },
    },
    {
      name: 'db-below-modules',
      severity: 'error',
      comment: 'src/db/ imports nothing from src/modules/ or src/plugins/ (only types from a module schemas file, see the next rule).',
      from: { path: '^src/db/' },
      to: { path: '^src/(modules|plugins)/', pathNot: MODULE_SCHEMAS },
    },
    {
      name: 'db-below-modules',
      severity: 'error',
      comment: 'src/db/ may take types (import type) from src/modules/*/*/*.schemas.ts, but no values.',
      from: { path: '^src/db/' },
      to: { path: MODULE_SCHEMAS, dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'lib-is-a-leaf',
      severity: 'error',
      comment: 'src/lib/ imports nothing from src/modules/, src/plugins/ or src/cli/.',
      from: { path: '^src/lib/' },
      to: { path: '^src/(modules|plugins|cli)/' },
    },
    {
      name: 'no-orphans',
      severity: 'warn',
      comment: 'A module nothing imports and that imports nothing: likely unused.',
      from: { orphan: true, pathNot: ['\\.d\\.ts$'] },
      to: {},
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Reads compilerOptions (NodeNext); `./x.js` imports resolve to ./x.ts.
    tsConfig: { fileName: 'tsconfig.json' },
    // Keep imports that vanish on compilation (import type), so type-only cycles are seen.
    tsPreCompilationDeps: true,
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
    reporterOptions: {
      text: { highlightFocused: true },
    },
  },
};
