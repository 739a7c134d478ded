// Rule (issue 44, point 7): the portal's first route costs at most 60 KB of JavaScript, gzipped: what its index.html
// loads before anything renders (the entry script and every module it preloads). A size, not a time: it holds on any
// machine. The build is the one `npm run build` makes (test/helpers/browser.ts builds it when it is missing).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { ensureBuilt } from './helpers/browser.js';

const FIRST_ROUTE_JS_GZIP_BYTES = 60 * 1024;

test('the portal’s first route loads at most 60 KB of JavaScript, gzipped', () => {
  ensureBuilt();
  const dist = join('dist', 'portal');
  const html = readFileSync(join(dist, 'index.html'), 'utf8');
  const scripts = [
    ...html.matchAll(/<script type="module"[^>]*src="\/portal\/([^"]+)"|<link rel="modulepreload"[^>]*href="\/portal\/([^"]+)"/g),
  ].map((found) => found[1] ?? found[2]);
  assert.ok(scripts.length >= 1, 'index.html loads its entry script');
  const sizes = scripts.map((file) => ({ file, gzipped: gzipSync(readFileSync(join(dist, file)), { level: 9 }).length }));
  const total = sizes.reduce((sum, { gzipped }) => sum + gzipped, 0);
  assert.ok(total <= FIRST_ROUTE_JS_GZIP_BYTES, `the first route's JavaScript is ${total} bytes gzipped: ${JSON.stringify(sizes)}`);
});
