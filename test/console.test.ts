// The admin console (console/, served at /console) in a real browser: headless chromium driven by
// playwright-core against a `portal serve` process on SQLite, one end-to-end test per page. Each test
// signs in on its own browser context and makes its own workspace, so none depends on another.
// Screenshots go to test/artifacts/console-<page>.png; every page is checked with axe-core.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { type IncomingHttpHeaders, type Server as HttpServer, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { WAIT_MS, assertAccessible, ensureBuilt, launchBrowser, screenshot, scrollsSideways } from './helpers/browser.js';
import { logoPng } from './helpers/images.js';
import { type Server, jsonRequest, serve, stop } from './helpers/server.js';

const ADMIN_TOKEN = 'console-test-admin-token-0123456789';
const TEST_MS = 90_000;

let server: Server;
let browser: Browser;
let receiver: Receiver;
let dir: string;

before(async () => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'portal-console-'));
  receiver = await startReceiver();
  server = await serve({
    DATABASE_URL: `sqlite:${join(dir, 'portal.db')}`,
    PORTAL_ADMIN_TOKEN: ADMIN_TOKEN,
    PORTAL_WEBHOOKS_ALLOW_PRIVATE: '1',
    FILES_DIR: join(dir, 'files'),
    // Fixtures are made quickly through the API; the console itself is not what the limits are tested on.
    RATE_LIMIT_GET_CAPACITY: '10000',
    RATE_LIMIT_GET_REFILL: '10000',
    RATE_LIMIT_WRITE_CAPACITY: '10000',
    RATE_LIMIT_WRITE_REFILL: '10000',
  });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  if (server) await stop(server.child);
  await receiver?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

// --- the API, from the test's side ----------------------------------------------------------------------------

type Answer<T = unknown> = Awaited<ReturnType<typeof jsonRequest<T>>>;

const http = <T = unknown>(method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<Answer<T>> =>
  jsonRequest<T>(server.base, method, path, headers, body);

/** An admin route with the admin token itself (the operator's scripts), not through the console. */
const admin = <T = Record<string, unknown>>(method: string, path: string, body?: unknown) =>
  http<T>(method, `/admin${path}`, { authorization: `Bearer ${ADMIN_TOKEN}` }, body);

/** A public route with a workspace key. */
const v1 = <T = Record<string, unknown>>(apiKey: string, method: string, path: string, body?: unknown) =>
  http<T>(method, `/v1${path}`, { 'x-api-key': apiKey }, body);

async function ok<T>(answer: Promise<Answer<T>>, status = 200): Promise<T> {
  const { status: got, body } = await answer;
  assert.equal(got, status, JSON.stringify(body));
  return body;
}

/** A workspace of the test's own, with its first workspace key. */
async function workspace(name: string, dailyQuota?: number) {
  const created = await ok(admin<{ workspaceId: string; apiKey: string }>('POST', '/workspaces', { name, dailyQuota }), 201);
  return { id: created.workspaceId, apiKey: created.apiKey };
}

// --- the browser side -----------------------------------------------------------------------------------------

interface Console {
  context: BrowserContext;
  page: Page;
  /** Page errors and Content-Security-Policy violations seen so far: none is expected. */
  problems: string[];
}

async function newConsole(t: { after: (fn: () => Promise<void>) => void }, viewport = { width: 1280, height: 800 }): Promise<Console> {
  const context = await browser.newContext({ viewport, baseURL: server.base, acceptDownloads: true });
  t.after(async () => {
    if (process.env.DEBUG_SHOTS) await context.pages()[0]?.screenshot({ path: `test/artifacts/last-${Date.now()}.png`, fullPage: true });
    await context.close();
  });
  context.setDefaultTimeout(WAIT_MS);
  context.setDefaultNavigationTimeout(WAIT_MS);
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) problems.push(`CSP: ${message.text()}`);
  });
  // Destructive actions ask window.confirm: the operator says yes.
  page.on('dialog', (dialog) => void dialog.accept());
  return { context, page, problems };
}

/** A console signed in through its form (the admin token typed once, then only the cookie). */
async function signedIn(t: { after: (fn: () => Promise<void>) => void }, viewport?: { width: number; height: number }) {
  const c = await newConsole(t, viewport);
  await c.page.goto('/console/');
  await c.page.getByLabel('Admin token').fill(ADMIN_TOKEN);
  await c.page.getByRole('button', { name: 'Sign in' }).click();
  await c.page.getByRole('heading', { level: 1, name: 'Workspaces' }).waitFor();
  return c;
}

const heading = (page: Page, name: string | RegExp) => page.getByRole('heading', { level: 1, name }).waitFor();
const row = (page: Page, text: string | RegExp) => page.getByRole('row').filter({ hasText: text });
const region = (page: Page, name: string) => page.getByRole('region', { name });

/** Screenshot, accessibility check and no page error or CSP violation: what every page test ends with. */
async function checkPage(c: Console, name: string, alsoTo?: string, fullPage = true) {
  await screenshot(c.page, name, alsoTo, fullPage);
  await assertAccessible(c.page, name);
  assert.deepEqual(c.problems, [], `${name}: no page error, no Content-Security-Policy violation`);
}

/** Polls `check` (bounded: `tries` × `everyMs`), running `between` (a Refresh click) before each new try. */
async function until(what: string, check: () => Promise<boolean>, between: () => Promise<void>, tries = WAIT_MS / 250, everyMs = 250) {
  for (let i = 0; i < tries; i++) {
    if (await check()) return;
    await sleep(everyMs);
    await between();
  }
  assert.fail(`${what}: still not so after ${(tries * everyMs) / 1000} s`);
}

// --- a webhook receiver and a page on another origin -------------------------------------------------------------

interface Receiver {
  base: string;
  /** Answer 500 to deliveries while true. */
  failing: boolean;
  deliveries: { headers: IncomingHttpHeaders; body: string; answered: number }[];
  close: () => Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const state: Omit<Receiver, 'base' | 'close'> = { failing: true, deliveries: [] };
  let target = '';
  const httpServer: HttpServer = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      if (req.url === '/hook') {
        const answered = state.failing ? 500 : 200;
        state.deliveries.push({ headers: req.headers, body, answered });
        res.writeHead(answered, { 'content-type': 'text/plain' }).end(answered === 500 ? 'receiver down' : 'ok');
      } else if (req.url === '/elsewhere') {
        // A page of another origin (another port of the same host: the same site, so SameSite lets the cookie go).
        res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>elsewhere</title><p>elsewhere</p>`);
      } else res.writeHead(404).end();
    });
  });
  await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  target = `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}`;
  const receiverState = state as Receiver;
  receiverState.base = target;
  receiverState.close = () =>
    new Promise<void>((resolve) => {
      httpServer.closeAllConnections();
      httpServer.close(() => resolve());
    });
  return receiverState;
}

// --- the tests -----------------------------------------------------------------------------------------------------

test('the console is served from dist/console: strict CSP, no framing, index.html revalidated, hashed assets cached for good', async () => {
  const index = await fetch(`${server.base}/console`, { signal: AbortSignal.timeout(WAIT_MS) });
  assert.equal(index.status, 200);
  assert.match(index.headers.get('content-type') ?? '', /^text\/html/);
  assert.equal(index.headers.get('cache-control'), 'no-cache');
  assert.equal(index.headers.get('x-frame-options'), 'DENY');
  const csp = index.headers.get('content-security-policy') ?? '';
  assert.match(csp, /default-src 'self'/);
  assert.match(csp, /script-src 'self'/);
  assert.match(csp, /frame-ancestors 'none'/);
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|https?:/, 'no inline script, no eval, no other origin');
  const html = await index.text();
  assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/, 'no inline script in index.html');
  assert.doesNotMatch(html, /https?:\/\//, 'nothing fetched from another origin (no CDN, no web font)');

  const deep = await fetch(`${server.base}/console/workspaces/${randomUUID()}/keys`, { signal: AbortSignal.timeout(WAIT_MS) });
  assert.equal(deep.status, 200, 'a client-side route answers the app');
  assert.equal(await deep.text(), html);

  const script = /src="(\/console\/assets\/[^"]+\.js)"/.exec(html)?.[1];
  assert.ok(script, 'index.html loads a hashed bundle');
  const asset = await fetch(server.base + script, { signal: AbortSignal.timeout(WAIT_MS) });
  assert.equal(asset.status, 200);
  assert.match(asset.headers.get('cache-control') ?? '', /max-age=31536000.*immutable|immutable.*max-age=31536000/);
  assert.equal(asset.headers.get('content-security-policy'), csp);
  await asset.arrayBuffer();

  const missing = await fetch(`${server.base}/console/assets/gone-0123abcd.js`, { signal: AbortSignal.timeout(WAIT_MS) });
  assert.equal(missing.status, 404, 'a missing file is a 404, never the app in its place');
  await missing.arrayBuffer();
});

test('sign-in: a wrong token is refused; the right one gives an HttpOnly, SameSite=Strict cookie, and the token is kept nowhere', {
  timeout: TEST_MS,
}, async (t) => {
  const c = await newConsole(t);
  const { page, context } = c;
  await page.goto('/console/clients-of-nowhere');
  await heading(page, 'Sign in to the Portal console');
  await checkPage(c, 'sign-in');

  await page.getByLabel('Admin token').fill('not-the-admin-token-at-all');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('alert').filter({ hasText: 'That admin token is not right.' }).waitFor();
  assert.equal(await page.getByLabel('Admin token').inputValue(), '', 'the field is cleared after a failure too');

  await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { level: 1, name: 'Page not found' }).waitFor();

  const cookie = (await context.cookies()).find((one) => one.name === 'portal_admin');
  assert.ok(cookie, 'the session cookie is set');
  assert.equal(cookie.httpOnly, true, 'HttpOnly: no script can read it');
  assert.equal(cookie.sameSite, 'Strict', 'SameSite=Strict: no other site makes the browser send it');
  assert.equal(cookie.path, '/');
  assert.notEqual(cookie.value, ADMIN_TOKEN, 'the cookie is not the token');
  assert.equal(await page.evaluate('document.cookie'), '', 'the page script sees no cookie');
  assert.equal(await page.evaluate('localStorage.length + sessionStorage.length'), 0, 'nothing in web storage');
  assert.ok(!(await page.content()).includes(ADMIN_TOKEN), 'the token is nowhere in the page');
});

test('CSRF: a request with the cookie but without X-Portal-Console is refused (403), from the console origin and from another', {
  timeout: TEST_MS,
}, async (t) => {
  const c = await signedIn(t);
  const { context, page } = c;

  // The same cookie, as any request the browser would send on its own (a link, a form, an image).
  const bare = await context.request.get('/admin/workspaces', { timeout: WAIT_MS });
  assert.equal(bare.status(), 403);
  assert.match((await bare.json()).message, /X-Portal-Console/);
  const formPost = await context.request.post('/admin/workspaces', { data: { name: 'csrf' }, timeout: WAIT_MS });
  assert.equal(formPost.status(), 403);
  const withHeader = await context.request.get('/admin/workspaces', { headers: { 'x-portal-console': '1' }, timeout: WAIT_MS });
  assert.equal(withHeader.status(), 200, 'the console, which sends the header, is let in');

  // A page on another origin of the same site: its blind POST carries the cookie but cannot add the header
  // (no-cors allows no custom header), and a request with the header needs a CORS preflight the server never grants.
  await page.goto(`${receiver.base}/elsewhere`);
  const outcome = await page.evaluate(`(async () => {
    await fetch(${JSON.stringify(`${server.base}/admin/workspaces`)}, { method: 'POST', mode: 'no-cors', credentials: 'include',
      headers: { 'content-type': 'text/plain' }, body: JSON.stringify({ name: 'csrf-from-elsewhere' }) });
    try {
      await fetch(${JSON.stringify(`${server.base}/admin/workspaces`)}, { credentials: 'include', headers: { 'x-portal-console': '1' } });
      return 'read';
    } catch { return 'blocked'; }
  })()`);
  assert.equal(outcome, 'blocked', 'another origin cannot send the header (no CORS)');
  const list = await ok(admin<{ data: { name: string }[] }>('GET', '/workspaces?limit=1000'));
  assert.ok(!list.data.some((w) => w.name.startsWith('csrf')), 'no request without the header changed anything');
  assert.deepEqual(c.problems, []);
});

test('workspaces: create one (its key shown once, with a copy button), rename it, change its quota, see today’s usage', {
  timeout: TEST_MS,
}, async (t) => {
  const c = await signedIn(t);
  const { page, context } = c;
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.base });
  // Two more, with some of today's quota used (what the screenshot in docs/ shows).
  for (const [name, quota, used] of [
    ['Northwind Traders', 20, 12],
    ['Blue Harbor Legal', 10, 9],
  ] as const) {
    const other = await workspace(name, quota);
    for (let i = 0; i < used; i++) await ok(v1(other.apiKey, 'GET', '/me'));
  }
  await page.reload();
  await heading(page, 'Workspaces');

  const create = region(page, 'Create a workspace');
  await create.getByLabel('Name').fill('Summit Dental');
  await create.getByLabel('Daily quota').fill('500');
  await create.getByRole('button', { name: 'Create workspace' }).click();
  const secret = region(page, 'Workspace API key of Summit Dental');
  await secret.waitFor();
  const key = await secret.getByRole('textbox').inputValue();
  assert.match(key, /^ppk_/);
  await secret.getByRole('button', { name: 'Copy' }).click();
  await secret.getByText('Copied to the clipboard.').waitFor();
  assert.equal(await page.evaluate('navigator.clipboard.readText()'), key, 'Copy puts the key on the clipboard');
  await page.getByRole('status').filter({ hasText: 'Workspace Summit Dental created.' }).waitFor();
  await screenshot(page, 'workspace-created');
  await secret.getByRole('button', { name: 'I have saved it' }).click();
  await secret.waitFor({ state: 'detached' });
  assert.ok(!(await page.content()).includes(key), 'once dismissed, the key is gone from the page');

  // The key works; its requests count against the quota shown.
  for (let i = 0; i < 3; i++) await ok(v1(key, 'GET', '/me'));
  await page.reload();
  const created = row(page, 'Summit Dental');
  await created.getByText('3 of 500').waitFor();

  await created.getByRole('button', { name: 'Edit workspace Summit Dental' }).click();
  const edit = page.getByRole('form', { name: 'Edit workspace Summit Dental' });
  await edit.getByLabel('Name').fill('Summit Dental Group');
  await edit.getByLabel('Daily quota').fill('800');
  await edit.getByRole('button', { name: 'Save' }).click();
  await row(page, 'Summit Dental Group').getByText('3 of 800').waitFor();
  const me = await ok(v1<{ workspaceId: string }>(key, 'GET', '/me'));
  const listed = await ok(admin<{ data: { id: string; name: string; dailyQuota: number }[] }>('GET', '/workspaces?limit=1000'));
  const saved = listed.data.find((w) => w.id === me.workspaceId);
  assert.deepEqual([saved?.name, saved?.dailyQuota], ['Summit Dental Group', 800]);

  await page.setViewportSize({ width: 1280, height: 720 });
  mkdirSync('docs', { recursive: true });
  await checkPage(c, 'workspaces', join('docs', 'console.png'));
});

// Rule (issue 44, point 1): the operator sets the workspace's logo from a file (shown as it is set), replaces it,
// removes it, and sets the brand colour, on the workspace's Branding page.
test('branding: set a logo from a file, see it, remove it; set the brand colour', { timeout: TEST_MS }, async (t) => {
  const ws = await workspace('Brand Co');
  const c = await signedIn(t);
  const { page } = c;
  await page.goto(`/console/workspaces/${ws.id}/branding`);
  await heading(page, 'Branding');
  const logo = region(page, 'Logo');
  await logo.getByText('No logo yet: the name is shown alone.').waitFor();
  await checkPage(c, 'branding-empty');

  await logo.getByLabel('Logo').setInputFiles({ name: 'brand.png', mimeType: 'image/png', buffer: logoPng() });
  await logo.getByRole('button', { name: 'Set logo' }).click();
  await page.getByRole('status').filter({ hasText: 'Logo set from brand.png.' }).waitFor();
  const shown = logo.getByRole('img', { name: 'The logo of Brand Co' });
  await shown.waitFor();
  await page.waitForFunction(() => {
    const img = document.querySelector<HTMLImageElement>('.logo-preview img');
    return img?.complete === true && img.naturalWidth === 96;
  });
  const listed = await ok(admin<{ data: { id: string; logoUrl?: string }[] }>('GET', '/workspaces?limit=1000'));
  const logoUrl = listed.data.find((w) => w.id === ws.id)?.logoUrl ?? '';
  assert.equal(await shown.getAttribute('src'), new URL(logoUrl).pathname, 'the logo from this origin');
  await checkPage(c, 'branding-logo');

  // An SVG is refused with the server's word; the logo stays.
  await logo
    .getByLabel('New logo')
    .setInputFiles({ name: 'x.svg', mimeType: 'image/svg+xml', buffer: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>') });
  await logo.getByRole('button', { name: 'Replace logo' }).click();
  await logo.getByText(/is not a PNG, JPEG, WebP or GIF image/).waitFor();
  await shown.waitFor();

  const color = region(page, 'Brand colour');
  await color.getByLabel('Colour').fill('#7c3aed');
  await color.getByRole('button', { name: 'Save colour' }).click();
  await page.getByRole('status').filter({ hasText: 'Brand colour set to #7c3aed.' }).waitFor();

  await logo.getByRole('button', { name: 'Remove logo' }).click();
  await page.getByRole('status').filter({ hasText: 'Logo removed.' }).waitFor();
  await logo.getByText('No logo yet: the name is shown alone.').waitFor();
  const after = await ok(admin<{ data: { id: string; logoUrl?: string; brandColor?: string }[] }>('GET', '/workspaces?limit=1000'));
  const saved = after.data.find((w) => w.id === ws.id);
  assert.deepEqual([saved?.logoUrl, saved?.brandColor], [undefined, '#7c3aed']);
  await page.setViewportSize({ width: 320, height: 800 });
  assert.equal(await scrollsSideways(page), false, 'one column at 320 px');
  await checkPage(c, 'branding-320');
});

test('API keys: create an app key (shown once, with a copy button) and revoke it', { timeout: TEST_MS }, async (t) => {
  const ws = await workspace('Keys Co');
  const c = await signedIn(t);
  const { page } = c;
  await page.goto(`/console/workspaces/${ws.id}/keys`);
  await heading(page, 'API keys');
  await row(page, 'workspace').first().waitFor();

  const create = region(page, 'Create a key');
  await create.getByLabel('App key').check();
  const appId = randomUUID();
  await create.getByLabel('App id').fill(appId);
  await create.getByLabel('Label').fill('Zapier sync');
  await create.getByRole('button', { name: 'Create key' }).click();
  const secret = region(page, `New app key (app ${appId})`);
  await secret.getByRole('button', { name: 'Copy' }).waitFor();
  const key = await secret.getByRole('textbox').inputValue();
  assert.match(key, /^ppk_/);
  assert.equal((await http('POST', '/v1/token', { 'x-api-key': key })).status, 200, 'the new app key mints tokens');
  await secret.getByRole('button', { name: 'I have saved it' }).click();
  assert.ok(!(await page.content()).includes(key), 'shown once');

  const keyRow = row(page, 'Zapier sync');
  await keyRow.getByText('active').waitFor();
  await keyRow.getByRole('button', { name: 'Revoke key Zapier sync' }).click();
  await keyRow.getByText('revoked').waitFor();
  assert.equal((await http('POST', '/v1/token', { 'x-api-key': key })).status, 401, 'the revoked key is refused');
  await checkPage(c, 'keys');
});

test('QA: mark a client as a QA principal, mint its impersonation token (shown once), an agent token, then remove it', {
  timeout: TEST_MS,
}, async (t) => {
  const ws = await workspace('QA Co');
  const appId = randomUUID();
  const key = await ok(admin<{ apiKeyId: string; apiKey: string }>('POST', `/workspaces/${ws.id}/keys`, { appId, label: 'Tester' }), 201);
  const company = await ok(v1<{ id: string }>(ws.apiKey, 'POST', '/companies', { name: 'Hooli' }));
  const client = await ok(
    v1<{ id: string }>(ws.apiKey, 'POST', '/clients', {
      email: 'gavin@hooli.example',
      givenName: 'Gavin',
      familyName: 'B',
      companyId: company.id,
    }),
  );
  const c = await signedIn(t);
  const { page } = c;
  await page.goto(`/console/workspaces/${ws.id}/qa`);
  await heading(page, 'QA');
  await page.getByText('No QA principal yet.').waitFor();

  const create = region(page, 'Add a QA principal');
  await create.getByLabel('Client or internal user').selectOption({ label: 'Gavin B <gavin@hooli.example>' });
  await create.getByRole('button', { name: 'Add QA principal' }).click();
  const principal = row(page, 'gavin@hooli.example');
  await principal.getByRole('cell', { name: 'client', exact: true }).waitFor();
  const listed = await ok(admin<{ data: { id: string }[] }>('GET', `/workspaces/${ws.id}/qa/principals`));
  assert.deepEqual(
    listed.data.map((p) => p.id),
    [client.id],
  );

  await page.getByLabel('App API key for impersonation tokens').fill(key.apiKey);
  await principal.getByRole('button', { name: 'Mint token for gavin@hooli.example' }).click();
  const secret = page.getByRole('region', { name: /^Impersonation token for gavin@hooli.example/ });
  await secret.getByRole('button', { name: 'Copy' }).waitFor();
  const token = await secret.getByRole('textbox').inputValue();
  assert.match(token, /^[0-9a-f]{64,}$/);
  const tokenId = /session ([0-9a-f-]{36})/.exec((await secret.getByRole('heading').textContent()) ?? '')?.[1] ?? '';
  const me = await ok(v1<{ id: string }>(`${ws.id}/${key.apiKey}/${tokenId}`, 'GET', '/me'));
  assert.equal(me.id, client.id, 'the token acts as the QA principal');
  await secret.getByRole('button', { name: 'I have saved it' }).click();
  assert.ok(!(await page.content()).includes(token), 'shown once');
  await checkPage(c, 'qa');

  const agent = region(page, 'Mint an agent bearer token');
  await agent.getByLabel('App key').selectOption(key.apiKeyId);
  await agent.getByLabel('Lifetime (seconds)').fill('120');
  await agent.getByRole('button', { name: 'Mint agent token' }).click();
  const bearer = await page
    .getByRole('region', { name: `Agent bearer token for key ${key.apiKeyId}` })
    .getByRole('textbox')
    .inputValue();
  assert.match(bearer, /^ppt_/);
  assert.equal((await http('GET', '/v1/companies', { authorization: `Bearer ${bearer}` })).status, 200, 'the agent token works');
  await page.getByRole('button', { name: 'I have saved it' }).click();

  await principal.getByRole('button', { name: 'Remove gavin@hooli.example from QA' }).click();
  await page.getByText('gavin@hooli.example is no longer a QA principal.').waitFor();
  assert.equal((await http('GET', '/v1/me', { 'x-api-key': `${ws.id}/${key.apiKey}/${tokenId}` })).status, 401, 'its session is revoked');
  const events = await ok(v1<{ data: { eventType: string }[] }>(ws.apiKey, 'GET', '/audit-logs?limit=100'));
  assert.deepEqual(
    events.data.map((e) => e.eventType).filter((e) => e.startsWith('qa')),
    ['qaPrincipalDeleted', 'qaAgentBearerMinted', 'qaImpersonationTokenMinted', 'qaPrincipalCreated'],
  );
});

test('installs: publish a draft; view its notification settings', { timeout: TEST_MS }, async (t) => {
  const ws = await workspace('Installs Co');
  const install = await ok(
    admin<{ id: string }>('POST', `/workspaces/${ws.id}/installs`, {
      type: 'custom',
      name: 'Onboarding app',
      appId: randomUUID(),
      draft: true,
    }),
  );
  await ok(
    v1(ws.apiKey, 'POST', `/installs/${install.id}/notification-settings`, {
      notifications: [
        { id: 'taskAssigned', label: 'Task assigned', surfaces: ['product', 'email'], default: { product: true, email: false } },
        { id: 'weeklyDigest', label: 'Weekly digest', surfaces: ['email'] },
      ],
    }),
  );
  const c = await signedIn(t);
  const { page } = c;
  await page.goto(`/console/workspaces/${ws.id}/installs`);
  await heading(page, 'Installs');
  const draft = row(page, 'Onboarding app');
  await draft.getByText('draft').waitFor();
  await checkPage(c, 'installs');

  await draft.getByRole('button', { name: 'Publish Onboarding app' }).click();
  await draft.getByText('published').waitFor();
  assert.equal((await ok(v1<{ status: string }>(ws.apiKey, 'GET', `/installs/${install.id}`))).status, 'published');

  await draft.getByRole('link', { name: 'Notification settings of Onboarding app' }).click();
  await heading(page, 'Notification settings of Onboarding app');
  await row(page, 'Task assigned').getByText('product, email').waitFor();
  await row(page, 'Weekly digest').waitFor();
  await checkPage(c, 'notification-settings');
});

test('audit log: filter by event type, by actor and by time', { timeout: TEST_MS }, async (t) => {
  const ws = await workspace('Audit Co');
  await ok(v1(ws.apiKey, 'POST', '/companies', { name: 'Audited Ltd' }));
  await ok(v1(ws.apiKey, 'POST', '/clients', { email: 'audited@example.com', givenName: 'Audi', familyName: 'Ted' }));
  const c = await signedIn(t);
  const { page } = c;
  await page.goto(`/console/workspaces/${ws.id}/audit-log`);
  await heading(page, 'Audit log');
  await row(page, 'clientCreated').first().waitFor();

  const filters = page.getByRole('search', { name: 'Audit log filters' });
  await filters.getByLabel('Event type').selectOption('companyCreated');
  await filters.getByRole('button', { name: 'Filter', exact: true }).click();
  await row(page, 'clientCreated').first().waitFor({ state: 'detached' });
  const rows = page.locator('table.data tbody tr');
  const types = await rows.locator('td[data-label="Event"] strong').allTextContents();
  assert.ok(types.length >= 1 && types.every((type) => type === 'companyCreated'), `only companyCreated: ${types}`);
  await checkPage(c, 'audit-log');

  await filters.getByLabel('Created before').fill('2001-01-01T00:00:00');
  await filters.getByRole('button', { name: 'Filter', exact: true }).click();
  await page.getByText('No entry matches these filters.').waitFor();

  await filters.getByRole('button', { name: 'Clear filters' }).click();
  await row(page, 'clientCreated').first().waitFor();
  await filters.getByLabel('Actor id').fill(randomUUID());
  await filters.getByRole('button', { name: 'Filter', exact: true }).click();
  await page.getByText('No entry matches these filters.').waitFor();
});

// Rule (issue 45: "the operator console keeps only what an operator does across workspaces, and says where staff
// work"): a workspace's first page names its portal's staff sign-in and staff pages, invites an admin (a new
// workspace's first) and requires TOTP of staff. Rule (issue 42, point 13): without SMTP_URL (this server has none)
// the outbox page is local development's inbox: that invite's text, its link one click away.
test('workspace overview: where staff work (the portal), an admin invited, staff sign-in with TOTP; the outbox shows the invite and its link', {
  timeout: TEST_MS,
}, async (t) => {
  const ws = await workspace('Outbox Co');
  const c = await signedIn(t);
  const { page } = c;
  await row(page, 'Outbox Co').getByRole('link', { name: 'Outbox Co' }).click();
  await heading(page, 'Overview');
  const nav = page.getByRole('navigation', { name: 'Workspace Outbox Co' });
  // The heading is drawn before the workspaces' list names the navigation.
  await nav.waitFor();
  assert.deepEqual(await nav.getByRole('link').allTextContents(), [
    'Overview',
    'API keys',
    'Installs',
    'Webhooks',
    'E-mail outbox',
    'Branding',
    'QA',
    'Import & export',
    'Audit log',
  ]);
  const staff = region(page, 'Where staff work');
  const signIn = staff.getByRole('link', { name: `/portal/${ws.id}/sign-in` });
  assert.equal(await signIn.getAttribute('href'), `/portal/${ws.id}/sign-in`);
  for (const [name, href] of [
    ['Clients', 'clients'],
    ['Companies', 'companies'],
    ['Billing', 'billing'],
    ['Team', 'team'],
  ]) {
    assert.equal(await staff.getByRole('link', { name, exact: true }).getAttribute('href'), `/portal/${ws.id}/${href}`);
  }

  const invite = region(page, 'Invite an admin');
  await invite.getByLabel('Given name').fill('Lin');
  await invite.getByLabel('Family name').fill('Vite');
  await invite.getByLabel('Email').fill('lin@example.com');
  await invite.getByRole('button', { name: 'Invite admin' }).click();
  await page.getByRole('status').filter({ hasText: 'Lin Vite was invited as an admin' }).waitFor();
  const team = await ok(v1<{ data: { email: string; role: string }[] }>(ws.apiKey, 'GET', '/internal-users'));
  assert.deepEqual(
    team.data.map((u) => [u.email, u.role]),
    [['lin@example.com', 'admin']],
  );
  await checkPage(c, 'workspace');

  // Staff sign-in: a TOTP code required of staff (no portal page sets it).
  const signInSettings = region(page, 'Staff sign-in');
  await signInSettings.getByLabel(/Require a TOTP code/).check();
  await signInSettings.getByRole('button', { name: 'Save staff sign-in' }).click();
  await page.getByRole('status').filter({ hasText: 'Staff now sign in with a TOTP code.' }).waitFor();
  const listed = await ok(admin<{ data: { id: string; staffMfaRequired: boolean }[] }>('GET', '/workspaces?limit=1000'));
  assert.equal(listed.data.find((w) => w.id === ws.id)?.staffMfaRequired, true);
  await page.setViewportSize({ width: 320, height: 800 });
  assert.equal(await scrollsSideways(page), false, 'the overview at 320 px: the portal addresses wrap');
  await screenshot(page, 'workspace-320');
  await page.setViewportSize({ width: 1280, height: 800 });

  await nav.getByRole('link', { name: 'E-mail outbox' }).click();
  await heading(page, 'E-mail outbox');
  const mail = row(page, 'lin@example.com');
  await mail.getByText('You are invited to Outbox Co', { exact: true }).waitFor();
  await mail.getByText('queued', { exact: true }).waitFor();
  await mail.getByText('Text').click();
  const link = mail.getByRole('link', { name: /\/reset-password#/ });
  await link.waitFor();
  assert.match((await link.getAttribute('href')) ?? '', new RegExp(`/portal/${ws.id}/reset-password#[\\w-]{20,}$`));
  assert.match((await mail.locator('pre').textContent()) ?? '', /^Hello Lin,\n\nYou have been added to the team of Outbox Co\./);
  await checkPage(c, 'outbox');
});

test('webhooks: add an endpoint (its secret shown once), see a failed attempt in the delivery log, replay it', {
  timeout: TEST_MS,
}, async (t) => {
  const ws = await workspace('Hooks Co');
  const c = await signedIn(t);
  const { page } = c;
  await page.goto(`/console/workspaces/${ws.id}/webhooks`);
  await heading(page, 'Webhooks');

  const create = region(page, 'Add an endpoint');
  await create.getByLabel('URL').fill(`${receiver.base}/hook`);
  await create.getByLabel('Events').selectOption(['client.created']);
  await create.getByRole('button', { name: 'Add endpoint' }).click();
  const secret = region(page, `Signing secret of ${receiver.base}/hook`);
  assert.match(await secret.getByRole('textbox').inputValue(), /^whsec_/);
  await secret.getByRole('button', { name: 'I have saved it' }).click();
  await row(page, `${receiver.base}/hook`).getByText('client.created').waitFor();

  receiver.failing = true;
  const before = receiver.deliveries.length;
  await ok(v1(ws.apiKey, 'POST', '/clients', { email: 'hooked@example.com', givenName: 'Hoo', familyName: 'Ked' }));
  const log = page.getByRole('region', { name: 'Delivery log' });
  const refresh = () => log.getByRole('button', { name: 'Refresh' }).click();
  const delivery = row(page, 'client.created').filter({ has: page.getByRole('button', { name: /^Replay delivery/ }) });
  await until('the first attempt answered 500', async () => (await delivery.getByText('last answer 500').count()) > 0, refresh);
  await checkPage(c, 'webhooks');

  receiver.failing = false;
  await delivery.getByRole('button', { name: /^Replay delivery of client.created/ }).click();
  await log.getByRole('status').filter({ hasText: 'Delivery of client.created queued again.' }).waitFor();
  await until('the replayed delivery succeeded', async () => (await delivery.getByText('succeeded').count()) > 0, refresh);
  const sent = receiver.deliveries.slice(before);
  assert.ok(sent.length >= 2, 'the failed attempt and the replay');
  assert.equal(sent[0].answered, 500);
  assert.equal(sent.at(-1)?.answered, 200);
  assert.equal(sent.at(-1)?.headers['webhook-id'], sent[0].headers['webhook-id'], 'the replay has the same webhook-id');
  assert.equal(JSON.parse(sent.at(-1)?.body ?? '{}').eventType, 'client.created');
  await screenshot(page, 'webhooks-replayed');
});

test('CSV: import clients with an upload progress bar, then export them', { timeout: TEST_MS }, async (t) => {
  const ws = await workspace('CSV Co');
  const c = await signedIn(t);
  const { page } = c;
  await page.goto(`/console/workspaces/${ws.id}/csv`);
  await heading(page, 'Import & export clients');

  const csv =
    'email,givenName,familyName,company\r\nlin@example.com,Lin,Chen,Acme Imports\r\nsam@example.com,Sam,Okafor,\r\nnot-an-email,Bad,Row,\r\n';
  const importing = region(page, 'Import clients from CSV');
  await importing.getByLabel('CSV file').setInputFiles({ name: 'clients.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
  await importing.getByRole('button', { name: 'Import' }).click();
  await importing
    .getByRole('status')
    .filter({ hasText: /Import of clients\.csv finished: 2 created, 0 skipped, 1 error/ })
    .waitFor();
  assert.equal(await importing.locator('progress').getAttribute('value'), '100', 'the progress bar ends full');
  const problems = importing.getByRole('table', { name: 'Lines not imported' });
  await problems.locator('tbody tr').first().waitFor();
  assert.equal(await problems.locator('tbody tr').count(), 1, 'the bad line is listed');
  await checkPage(c, 'csv');
  const imported = await ok(v1<{ data: { email: string }[] }>(ws.apiKey, 'GET', '/clients'));
  assert.deepEqual(imported.data.map((client) => client.email).sort(), ['lin@example.com', 'sam@example.com']);

  const [download] = await Promise.all([
    page.waitForEvent('download', { timeout: WAIT_MS }),
    region(page, 'Export clients to CSV').getByRole('button', { name: 'Download clients.csv' }).click(),
  ]);
  const exported = readFileSync(await download.path(), 'utf8');
  assert.match(exported.split(/\r?\n/)[0], /^email,givenName,familyName/);
  assert.match(exported, /lin@example\.com,Lin,Chen,Acme Imports/);
  assert.match(exported, /sam@example\.com/);
});

test('sign-out: the cookie is cleared and the admin surface refuses the browser', { timeout: TEST_MS }, async (t) => {
  const c = await signedIn(t);
  const { page, context } = c;
  await page.getByRole('button', { name: 'Sign out' }).click();
  await heading(page, 'Sign in to the Portal console');
  await page.getByText('You have signed out.').waitFor();
  assert.equal(
    (await context.cookies()).find((cookie) => cookie.name === 'portal_admin'),
    undefined,
    'the cookie is gone',
  );
  const after = await context.request.get('/admin/workspaces', { headers: { 'x-portal-console': '1' }, timeout: WAIT_MS });
  assert.equal(after.status(), 401);
  await page.reload();
  await heading(page, 'Sign in to the Portal console');
  assert.deepEqual(c.problems, []);
});

test('the API reference at /docs renders every operation under its CSP: no violation, no page error (issue 20, point 11)', {
  timeout: TEST_MS,
}, async (t) => {
  const c = await newConsole(t);
  const response = await c.page.goto('/docs');
  assert.equal(response?.headers()['x-frame-options'], 'DENY');
  assert.match(response?.headers()['content-security-policy'] ?? '', /frame-ancestors 'none'/);
  await c.page.getByRole('heading', { name: /Portal Platform API/ }).waitFor();
  // Tags start collapsed (src/plugins/openapi.ts): each is opened, its operations counted, and closed again.
  const sections = c.page.locator('.opblock-tag-section');
  await sections.first().waitFor();
  let operations = 0;
  for (let i = 0, tags = await sections.count(); i < tags; i++) {
    const section = sections.nth(i);
    await section.locator('.opblock-tag').click();
    await section.locator('.opblock').first().waitFor();
    operations += await section.locator('.opblock').count();
    await section.locator('.opblock-tag').click();
    await section.locator('.opblock').first().waitFor({ state: 'detached' });
  }
  const documented = Object.values((await ok(http<{ paths: object }>('GET', '/openapi.json', {}))).paths).reduce(
    (sum: number, ops) => sum + Object.keys(ops).length,
    0,
  );
  assert.equal(operations, documented, 'every documented operation is listed');
  await sections.first().locator('.opblock-tag').click();
  await c.page.locator('.opblock-summary').first().click();
  await c.page.locator('.opblock-body').first().waitFor();
  assert.deepEqual(c.problems, []);
});
