// How the portal's pages are served (src/plugins/portal-pages.ts) beside the sign-in API they call, on the whole app
// with the real build (dist/portal): index.html for every page path with the pages' headers, hashed assets cached
// for good, 404s for what is not a page, and the API's paths left to the API. In a real browser:
// portal-browser.test.ts.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, test } from 'node:test';
import { brotliDecompressSync } from 'node:zlib';
import Fastify, { type FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { systemClock } from '../src/lib/clock.js';
import { portalPageRoutes } from '../src/plugins/portal-pages.js';
import { ensureBuilt } from './helpers/browser.js';
import { createTestWorkspace } from './helpers/factories.js';

const INDEX = join('dist', 'portal', 'index.html');
const HTML_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; font-src 'self'; connect-src 'self'; object-src 'none'; " +
  "base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

before(() => ensureBuilt());

async function app(t: { after: (fn: () => unknown) => void }): Promise<{ app: FastifyInstance; workspaceId: string }> {
  const built = await buildApp(loadConfig({ DATABASE_URL: 'sqlite::memory:', LOG_LEVEL: 'silent' }), {
    webhooks: false,
    subscriptionPollMs: false,
  });
  t.after(() => built.close());
  const { workspaceId } = await createTestWorkspace({ app: built, clock: systemClock }, 'Pages');
  return { app: built, workspaceId };
}

test('every page path of a workspace answers index.html, revalidated each time, with the CSP and no framing', async (t) => {
  const { app: portal, workspaceId } = await app(t);
  const index = readFileSync(INDEX, 'utf8');
  for (const url of [
    `/portal/${workspaceId}/sign-in`,
    `/portal/${workspaceId}/sign-in?error=Denied`,
    `/portal/${workspaceId}`,
    `/portal/${workspaceId}/`,
    `/portal/${workspaceId}/magic-link`,
    `/portal/${workspaceId}/no-such-page/below`, // the app's own "not found" page
    // Any workspace id: the app, not the server, learns from the API that there is no such workspace.
    '/portal/00000000-0000-4000-8000-000000000000/totp',
  ]) {
    const answer = await portal.inject(url);
    assert.equal(answer.statusCode, 200, url);
    assert.equal(answer.body, index, url);
    assert.match(String(answer.headers['content-type']), /^text\/html/, url);
    assert.equal(answer.headers['cache-control'], 'no-cache', url);
    assert.equal(answer.headers['content-security-policy'], HTML_CSP, url);
    assert.equal(answer.headers['x-frame-options'], 'DENY', url);
    assert.equal(answer.headers['x-content-type-options'], 'nosniff', url);
    assert.equal(answer.headers['referrer-policy'], 'no-referrer', url);
  }
  assert.equal((await portal.inject({ method: 'HEAD', url: `/portal/${workspaceId}/invite` })).statusCode, 200);
  // The session cookie's path is the lowercase id: an id in capitals is sent there, query kept.
  const upper = await portal.inject(`/portal/${workspaceId.toUpperCase()}/sign-in?error=x`);
  assert.equal(upper.statusCode, 308);
  assert.equal(upper.headers.location, `/portal/${workspaceId}/sign-in?error=x`);
});

test('a workspace with published apps may frame their origins, and only theirs (not a draft’s, not a link’s)', async (t) => {
  const admin = 'portal-pages-admin-token-0123456789abcdef';
  const built = await buildApp(loadConfig({ DATABASE_URL: 'sqlite::memory:', LOG_LEVEL: 'silent', PORTAL_ADMIN_TOKEN: admin }), {
    webhooks: false,
    subscriptionPollMs: false,
  });
  t.after(() => built.close());
  const { workspaceId } = await createTestWorkspace({ app: built, clock: systemClock }, 'Apps');
  const { workspaceId: other } = await createTestWorkspace({ app: built, clock: systemClock }, 'No apps');
  const appId = '7b0e4a7e-8c1f-4d55-9f3a-2d5c3a1e9b11';
  for (const body of [
    { type: 'custom', name: 'Dev app', appId, url: 'http://127.0.0.1:5173/app?x=1' },
    { type: 'marketplace', name: 'Same origin again', appId, url: 'http://127.0.0.1:5173/other' },
    { type: 'marketplace', name: 'Hosted', appId, url: 'https://apps.example.com/portal' },
    { type: 'custom', name: 'Draft', appId, url: 'https://draft.example.com/', draft: true },
    { type: 'link', name: 'Docs', url: 'https://docs.example.com/' },
  ]) {
    const created = await built.inject({
      method: 'POST',
      url: `/admin/workspaces/${workspaceId}/installs`,
      headers: { authorization: `Bearer ${admin}` },
      payload: body,
    });
    assert.equal(created.statusCode, 200, created.body);
  }
  const withApps = await built.inject(`/portal/${workspaceId}/apps`);
  assert.equal(withApps.statusCode, 200);
  assert.equal(
    withApps.headers['content-security-policy'],
    HTML_CSP.replace("connect-src 'self'; ", "connect-src 'self'; frame-src 'self' http://127.0.0.1:5173 https://apps.example.com; "),
  );
  assert.equal(withApps.headers['x-frame-options'], 'DENY', 'nobody frames the portal itself');
  assert.equal((await built.inject(`/portal/${other}/apps`)).headers['content-security-policy'], HTML_CSP, 'another workspace');
  const asset = readFileSync(INDEX, 'utf8').match(/"(\/portal\/assets\/[^"]+\.js)"/)?.[1] ?? '';
  assert.equal((await built.inject(asset)).headers['content-security-policy'], HTML_CSP, 'the assets keep the plain policy');
});

test('the hashed assets at /portal/assets/ are cached for a year; a missing one is a 404, never the app', async (t) => {
  const { app: portal, workspaceId } = await app(t);
  const assets = [...readFileSync(INDEX, 'utf8').matchAll(/"(\/portal\/assets\/[^"]+)"/g)].map((m) => m[1]);
  assert.ok(assets.some((a) => a.endsWith('.js')) && assets.some((a) => a.endsWith('.css')), assets.join(' '));
  for (const url of assets) {
    const answer = await portal.inject(url);
    assert.equal(answer.statusCode, 200, url);
    assert.equal(answer.headers['cache-control'], 'public, max-age=31536000, immutable', url);
    assert.match(String(answer.headers['content-type']), /javascript|css|svg/, url);
    assert.equal(answer.headers['x-content-type-options'], 'nosniff', url);
    // The build's Brotli copy (web/kit/vite.ts), to a browser that takes it: the bundle some three quarters smaller.
    const compressed = await portal.inject({ url, headers: { 'accept-encoding': 'gzip, br' } });
    if (url.endsWith('.js') || url.endsWith('.css')) {
      assert.equal(compressed.headers['content-encoding'], 'br', url);
      assert.equal(brotliDecompressSync(compressed.rawPayload).toString(), answer.body, url);
      assert.equal(compressed.headers['cache-control'], 'public, max-age=31536000, immutable', url);
    }
  }
  for (const url of [
    '/portal/assets/index-Gone9999.js',
    '/portal/assets/',
    '/portal/assets/..%2f..%2fpackage.json',
    '/portal/assets/%2e%2e/index.html',
    `/portal/${workspaceId}/index-Gone9999.js`, // a file name under a page path: a stale URL, not a page
    '/portal/not-a-workspace/sign-in',
    '/portal/assets',
    '/portal/',
    '/portal',
  ]) {
    const answer = await portal.inject(url);
    assert.equal(answer.statusCode, 404, url);
    assert.ok(!answer.body.includes('"name": "portal-platform"') && !answer.body.includes('<!doctype html>'), url);
  }
});

test('the paths of the API stay the API: its 401, its 404 and its 405, as JSON', async (t) => {
  const { app: portal, workspaceId } = await app(t);
  const session = await portal.inject(`/portal/${workspaceId}/api/session`);
  assert.equal(session.statusCode, 401);
  assert.match(String(session.headers['content-type']), /^application\/json/);
  assert.deepEqual(session.json(), {
    code: 'unauthorized',
    message: 'Not signed in, or the session has ended: sign in again.',
    data: null,
  });
  assert.equal(session.headers['cache-control'], 'no-store');

  for (const path of ['/api', '/api/', '/api/no-such-route']) {
    const answer = await portal.inject(`/portal/${workspaceId}${path}`);
    assert.equal(answer.statusCode, 404, path);
    assert.equal(answer.json().code, 'not_found', path);
  }
  const wrongMethod = await portal.inject(`/portal/${workspaceId}/api/sign-in/password`);
  assert.equal(wrongMethod.statusCode, 405);
  assert.equal(wrongMethod.headers.allow, 'POST');
  // A page path takes GET (and HEAD) only.
  const post = await portal.inject({ method: 'POST', url: `/portal/${workspaceId}/sign-in` });
  assert.equal(post.statusCode, 405);
});

test('before the pages are built, a page path says so (503); assets are 404s', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'portal-pages-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const bare = Fastify();
  await bare.register(portalPageRoutes, { root });
  t.after(() => bare.close());
  const answer = await bare.inject('/portal/00000000-0000-4000-8000-000000000000/sign-in');
  assert.equal(answer.statusCode, 503);
  assert.equal(answer.body, "The portal's pages are not built: run `npm run build` (npm start does), then reload.\n");
  assert.equal(answer.headers['cache-control'], 'no-store');
  assert.equal(answer.headers['x-frame-options'], 'DENY');
  assert.equal((await bare.inject('/portal/assets/index-AbCd1234.js')).statusCode, 404);
});
