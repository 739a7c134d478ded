import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/**
 * The admin console: built into dist/console and served by the server at /console (src/plugins/console.ts).
 * Everything is bundled (no CDN, no web font); JSX is Preact's through Vite's own transform.
 */
export default defineConfig({
  root: here('.'),
  base: '/console/',
  publicDir: false,
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  // `npx vite web/console`: the console with hot reload, its API calls passed to a running server.
  server: {
    proxy: Object.fromEntries(['/admin', '/v1'].map((prefix) => [prefix, process.env.PORTAL_DEV_SERVER ?? 'http://127.0.0.1:8080'])),
  },
  build: {
    outDir: here('../../dist/console'),
    emptyOutDir: true,
    // No data: URLs: the console's Content-Security-Policy allows images and fonts from 'self' only.
    assetsInlineLimit: 0,
    target: 'es2022',
    sourcemap: false,
    reportCompressedSize: false,
  },
});
