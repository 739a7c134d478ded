import { fileURLToPath } from 'node:url';
import { type Plugin, type UserConfig, defineConfig } from 'vite';

/** What is the same in every front end's <head> (each index.html has its title and icon), put first by the build. */
const headTags: Plugin = {
  name: 'web-kit-head',
  transformIndexHtml: () => [
    { tag: 'meta', attrs: { charset: 'utf-8' }, injectTo: 'head-prepend' },
    { tag: 'meta', attrs: { name: 'viewport', content: 'width=device-width, initial-scale=1' }, injectTo: 'head-prepend' },
    { tag: 'meta', attrs: { name: 'color-scheme', content: 'light' }, injectTo: 'head-prepend' },
    { tag: 'meta', attrs: { name: 'referrer', content: 'no-referrer' }, injectTo: 'head-prepend' },
  ],
};

/**
 * A front end's Vite configuration: `dir` (its folder's URL, `import.meta.url`) built into dist/`name` and served by
 * the server at `base`; in `npx vite web/<name>`, requests matching `proxy` go to a running server
 * (PORTAL_DEV_SERVER, else 127.0.0.1:8080). Everything is bundled (no CDN, no web font); JSX is Preact's through
 * Vite's own transform.
 */
export function frontEnd({ dir, name, base, proxy }: { dir: string; name: string; base: string; proxy: string[] }): UserConfig {
  const here = (path: string) => fileURLToPath(new URL(path, dir));
  const server = process.env.PORTAL_DEV_SERVER ?? 'http://127.0.0.1:8080';
  return defineConfig({
    root: here('.'),
    base,
    publicDir: false,
    logLevel: 'warn',
    plugins: [headTags],
    oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
    server: { proxy: Object.fromEntries(proxy.map((prefix) => [prefix, server])) },
    build: {
      outDir: here(`../../dist/${name}`),
      emptyOutDir: true,
      // No data: URLs: the pages' Content-Security-Policy allows images and fonts from 'self' only.
      assetsInlineLimit: 0,
      target: 'es2022',
      sourcemap: false,
      reportCompressedSize: false,
    },
  });
}
