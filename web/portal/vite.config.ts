import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/**
 * The portal's pages (sign-in, the e-mailed links, the account): built into dist/portal and served by the server
 * at /portal/{workspaceId}/… with their files at /portal/assets/ (src/plugins/portal-pages.ts). Everything is
 * bundled (no CDN, no web font); JSX is Preact's through Vite's own transform, as in the console.
 */
export default defineConfig({
  root: here('.'),
  base: '/portal/',
  publicDir: false,
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  // `npx vite web/portal`: the pages with hot reload, the sign-in API passed to a running server (open
  // /portal/{workspaceId}/sign-in; the dev server answers index.html for every page path).
  server: {
    proxy: { '^/portal/[^/]+/api/': process.env.PORTAL_DEV_SERVER ?? 'http://127.0.0.1:8080' },
  },
  build: {
    outDir: here('../../dist/portal'),
    emptyOutDir: true,
    // No data: URLs: the pages' Content-Security-Policy allows images and fonts from 'self' only.
    assetsInlineLimit: 0,
    target: 'es2022',
    sourcemap: false,
    reportCompressedSize: false,
  },
});
