// How the console's files are served (src/plugins/console.ts), on a bare Fastify with a made-up build:
// caching, the app for client-side routes, 404s for missing files, nothing outside the build, and a
// plain 503 before the console is built. The real build in a real browser: console.test.ts.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import Fastify from 'fastify';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { consoleRoutes } from '../src/plugins/console.js';

const INDEX = '<!doctype html><title>console</title><script type="module" src="/console/assets/index-AbCd1234.js"></script>';

async function consoleApp(t: { after: (fn: () => unknown) => void }, files: Record<string, string | Buffer>) {
  const root = mkdtempSync(join(tmpdir(), 'portal-console-static-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  // A secret beside the build, which no /console path may reach.
  writeFileSync(join(root, '..', 'portal-console-secret.txt'), 'TOP SECRET CONTENT');
  t.after(() => rmSync(join(root, '..', 'portal-console-secret.txt'), { force: true }));
  const app = Fastify();
  await app.register(consoleRoutes, { root });
  t.after(() => app.close());
  return app;
}

test('index.html for /console and every client-side route, revalidated each time, with the CSP and no framing', async (t) => {
  const app = await consoleApp(t, { 'index.html': INDEX, 'assets/index-AbCd1234.js': 'console.log(1)' });
  for (const url of ['/console', '/console/', '/console/workspaces/42/keys', '/console/sign-in']) {
    const answer = await app.inject(url);
    assert.equal(answer.statusCode, 200, url);
    assert.equal(answer.body, INDEX, url);
    assert.match(String(answer.headers['content-type']), /^text\/html/);
    assert.equal(answer.headers['cache-control'], 'no-cache', url);
    assert.match(String(answer.headers['content-security-policy']), /^default-src 'self'; script-src 'self'; style-src 'self';/);
    assert.equal(answer.headers['x-frame-options'], 'DENY');
    assert.equal(answer.headers['x-content-type-options'], 'nosniff');
  }
  const head = await app.inject({ method: 'HEAD', url: '/console/clients' });
  assert.equal(head.statusCode, 200);
});

test('hashed assets are cached for a year; other files are revalidated; a missing file is a 404, never the app', async (t) => {
  const app = await consoleApp(t, {
    'index.html': INDEX,
    'assets/index-AbCd1234.js': 'console.log(1)',
    'robots.txt': 'User-agent: *',
  });
  const script = await app.inject('/console/assets/index-AbCd1234.js');
  assert.equal(script.statusCode, 200);
  assert.equal(script.body, 'console.log(1)');
  assert.match(String(script.headers['content-type']), /javascript/);
  assert.equal(script.headers['cache-control'], 'public, max-age=31536000, immutable');

  const robots = await app.inject('/console/robots.txt');
  assert.equal(robots.statusCode, 200);
  assert.equal(robots.headers['cache-control'], 'no-cache');

  const missing = await app.inject('/console/assets/index-Gone9999.js');
  assert.equal(missing.statusCode, 404);
  assert.equal(missing.headers['x-frame-options'], 'DENY');
});

test('a file’s compressed copy from the build (web/kit/vite.ts) goes to a browser that accepts it, with the same headers', async (t) => {
  const SCRIPT = 'console.log("a script long enough to be worth compressing");'.repeat(20);
  const app = await consoleApp(t, {
    'index.html': INDEX,
    'index.html.gz': gzipSync(INDEX),
    'assets/index-AbCd1234.js': SCRIPT,
    'assets/index-AbCd1234.js.br': brotliCompressSync(SCRIPT),
    'assets/index-AbCd1234.js.gz': gzipSync(SCRIPT),
  });
  const url = '/console/assets/index-AbCd1234.js';
  const br = await app.inject({ url, headers: { 'accept-encoding': 'gzip, deflate, br, zstd' } });
  assert.equal(br.headers['content-encoding'], 'br');
  assert.equal(brotliDecompressSync(br.rawPayload).toString(), SCRIPT);
  const gzip = await app.inject({ url, headers: { 'accept-encoding': 'gzip' } });
  assert.equal(gzip.headers['content-encoding'], 'gzip');
  assert.equal(gunzipSync(gzip.rawPayload).toString(), SCRIPT);
  const plain = await app.inject(url);
  assert.equal(plain.headers['content-encoding'], undefined);
  assert.equal(plain.body, SCRIPT);
  for (const answer of [br, gzip, plain]) {
    assert.equal(answer.statusCode, 200);
    assert.match(String(answer.headers['content-type']), /javascript/);
    assert.equal(answer.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.match(String(answer.headers.vary), /accept-encoding/i, 'a shared cache keeps each encoding apart');
    assert.equal(answer.headers['x-frame-options'], 'DENY');
  }
  // index.html too, still revalidated; without a Brotli copy, the gzip one.
  const index = await app.inject({ url: '/console/clients', headers: { 'accept-encoding': 'br, gzip' } });
  assert.equal(index.headers['content-encoding'], 'gzip');
  assert.equal(gunzipSync(index.rawPayload).toString(), INDEX);
  assert.match(String(index.headers['content-type']), /^text\/html/);
  assert.equal(index.headers['cache-control'], 'no-cache');
});

test('no path leaves the build directory', async (t) => {
  const app = await consoleApp(t, { 'index.html': INDEX });
  for (const url of [
    '/console/../portal-console-secret.txt',
    '/console/%2e%2e/portal-console-secret.txt',
    '/console/..%2fportal-console-secret.txt',
    '/console/assets/..%2f..%2fportal-console-secret.txt',
  ]) {
    const answer = await app.inject(url);
    assert.ok(!answer.body.includes('TOP SECRET CONTENT'), `${url}: ${answer.statusCode} ${answer.body}`);
    assert.ok([400, 403, 404].includes(answer.statusCode) || answer.body === INDEX, `${url}: ${answer.statusCode}`);
  }
});

test('before the console is built, /console says so (503), and its assets are 404s', async (t) => {
  const app = await consoleApp(t, {});
  const answer = await app.inject('/console/workspaces');
  assert.equal(answer.statusCode, 503);
  assert.match(answer.body, /not built: run `npm run build`/);
  assert.equal(answer.headers['cache-control'], 'no-store');
  assert.equal((await app.inject('/console/assets/index-AbCd1234.js')).statusCode, 404);
});

test('without PORTAL_ADMIN_TOKEN, /console and the paths below it are 404s whose body says how to turn the console on (issue 29)', async (t) => {
  const app = await buildApp(loadConfig({ DATABASE_URL: 'sqlite::memory:', LOG_LEVEL: 'silent' }), {
    webhooks: false,
    subscriptionPollMs: false,
  });
  t.after(() => app.close());
  for (const url of ['/console', '/console/', '/console/workspaces/42/keys', '/console/assets/index-AbCd1234.js']) {
    const answer = await app.inject(url);
    assert.equal(answer.statusCode, 404, url);
    assert.equal(
      answer.body,
      "Not found: the admin console is off. Set PORTAL_ADMIN_TOKEN (16+ characters) in the server's environment and\n" +
        'restart: the console is then served here, at /console, and you sign in with that token (README.md, Admin console).\n',
      url,
    );
    assert.equal(answer.headers['content-type'], 'text/plain; charset=utf-8', url);
    assert.equal(answer.headers['cache-control'], 'no-store', url);
    assert.equal(answer.headers['x-frame-options'], 'DENY', url);
  }
  // The admin surface the console drives stays what it was: no route.
  assert.equal((await app.inject('/admin/workspaces')).statusCode, 404);
});
