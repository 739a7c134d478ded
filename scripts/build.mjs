#!/usr/bin/env node
// Bundles src/ into dist/cli/ with esbuild (about half a second): the server then runs as plain JavaScript,
// without tsx's loader thread (some 50 MB less memory), in a few files rather than some 900 modules, with the
// parts of Kysely and TypeBox it uses (tree-shaken: about 5 MB less at rest; the other packages stay in
// node_modules). What is imported dynamically (the server, the other commands, libraries a feature loads when
// first used) is a chunk of its own, loaded then. Type-checking is `npm run typecheck`.
// Then bundles the admin console (web/console, Preact) with Vite into dist/console, which the server
// serves at /console (src/plugins/console.ts), and the portal's pages (web/portal, likewise; both on the shared web/kit) into dist/portal,
// served at /portal/{workspaceId}/ (src/plugins/portal-pages.ts).
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { bundleForNode } from './node-bundle.mjs';

rmSync('dist', { recursive: true, force: true });
await bundleForNode({
  entryPoints: ['src/cli/main.ts'],
  // Chunks beside main.js: two levels below the repository, as every src/ file is (plugins/console.ts finds
  // dist/console from there).
  outdir: join('dist', 'cli'),
  // Bundled in: many small ES modules each, of which the server uses a part.
  bundled: ['kysely', 'typebox'],
});

// Vite is a dev dependency: an install without them (npm ci --omit=dev) still builds and runs the
// server, and /console then says it is not built.
let vite;
try {
  vite = await import('vite');
} catch (error) {
  if (error.code !== 'ERR_MODULE_NOT_FOUND') throw error;
  console.warn(
    "build: vite is not installed (a dev dependency), so the admin console and the portal's pages are not built: /console and /portal/… answer 503.",
  );
}
if (vite) {
  await vite.build({ configFile: join('web', 'console', 'vite.config.ts'), logLevel: 'warn' });
  await vite.build({ configFile: join('web', 'portal', 'vite.config.ts'), logLevel: 'warn' });
}
