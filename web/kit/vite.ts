import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
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
 * A Brotli and a gzip copy beside each text file of the build (`x.js.br`, `x.js.gz`), where smaller: the server sends
 * the one the browser accepts (src/plugins/built-pages.ts), compressed once here at the best level rather than on
 * every request. The bundle is some three quarters smaller on the wire.
 */
const precompressed: Plugin = {
  name: 'web-kit-precompressed',
  apply: 'build',
  writeBundle(options, bundle) {
    for (const fileName of Object.keys(bundle)) {
      if (!/\.(js|css|html|svg)$/.test(fileName) || !options.dir) continue;
      const path = join(options.dir, fileName);
      const content = readFileSync(path);
      const copies = {
        br: brotliCompressSync(content, {
          params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: content.length },
        }),
        gz: gzipSync(content, { level: 9 }),
      };
      for (const [extension, copy] of Object.entries(copies)) if (copy.length < content.length) writeFileSync(`${path}.${extension}`, copy);
    }
  },
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
    plugins: [headTags, precompressed],
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
