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
async function until(what: string, check: () => Promise<boolean>, between: () => Promise<void>, tries = 40, everyMs = 250) {
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

  const deep = await fetch(`${server.base}/console/workspaces/${randomUUID()}/clients`, { signal: AbortSignal.timeout(WAIT_MS) });
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

test('internal users: add one limited to a company, see it listed; the last admin stays admin; a user made admin, another removed', {
  timeout: TEST_MS,
}, async (t) => {
  const ws = await workspace('Staff Co');
  const company = await ok(v1<{ id: string }>(ws.apiKey, 'POST', '/companies', { name: 'Initech' }));
  const c = await signedIn(t);
  const { page } = c;
  await page.goto(`/console/workspaces/${ws.id}/internal-users`);
  await heading(page, 'Internal users');

  const create = region(page, 'Add an internal user');
  await create.getByLabel('Email').fill('peter@initech.example');
  await create.getByLabel('Given name').fill('Peter');
  await create.getByLabel('Family name').fill('Gibbons');
  await create.getByLabel('Role').selectOption('admin');
  await create.getByLabel('Initech').check();
  await create.getByRole('button', { name: 'Add internal user' }).click();
  const user = row(page, 'peter@initech.example');
  await user.getByRole('cell', { name: 'Initech', exact: true }).waitFor();
  await user.getByRole('cell', { name: 'admin', exact: true }).waitFor();

  const listed = await ok(v1<{ data: { email: string; companyAccessList: string[] }[] }>(ws.apiKey, 'GET', '/internal-users'));
  assert.deepEqual(
    listed.data.map((u) => [u.email, u.companyAccessList]),
    [['peter@initech.example', [company.id]]],
  );
  await checkPage(c, 'internal-users');

  // The staff lifecycle: the last admin cannot be made staff; another user made admin, then the first removed.
  await user.getByRole('button', { name: 'Make staff: peter@initech.example' }).click();
  await page.getByText(/last admin/).waitFor();
  await ok(
    admin('POST', `/workspaces/${ws.id}/internal-users`, { email: 'milton@initech.example', givenName: 'Milton', familyName: 'W' }),
    201,
  );
  await page.reload();
  const milton = row(page, 'milton@initech.example');
  await milton.getByRole('button', { name: 'Make admin: milton@initech.example' }).click();
  await milton.getByRole('cell', { name: 'admin', exact: true }).waitFor();
  await row(page, 'peter@initech.example').getByRole('button', { name: 'Remove peter@initech.example' }).click();
  await page.getByText('peter@initech.example removed.').waitFor();
  const left = await ok(v1<{ data: { email: string; role: string }[] }>(ws.apiKey, 'GET', '/internal-users'));
  assert.deepEqual(
    left.data.map((u) => [u.email, u.role]),
    [['milton@initech.example', 'admin']],
  );
});

test('clients: page through with nextToken, create one, find it by email, edit it, delete it; the phone layout does not scroll sideways', {
  timeout: TEST_MS,
}, async (t) => {
  const ws = await workspace('Clients Co');
  for (let i = 0; i < 26; i++) {
    await ok(v1(ws.apiKey, 'POST', '/clients', { email: `client${i}@example.com`, givenName: 'Client', familyName: `Number ${i}` }));
  }
  const c = await signedIn(t);
  const { page } = c;
  await page.goto(`/console/workspaces/${ws.id}/clients`);
  await heading(page, 'Clients');
  const body = page.locator('table.data tbody tr');
  await body.nth(24).waitFor();
  assert.equal(await body.count(), 25, 'a page of 25');
  const pager = page.getByRole('navigation', { name: 'Clients pages' });
  await pager.getByRole('button', { name: 'Next page' }).click();
  await pager.getByText('Page 2').waitFor();
  await body.nth(1).waitFor({ state: 'detached' });
  assert.equal(await body.count(), 1, 'the 26th on the second page');
  assert.ok(await pager.getByRole('button', { name: 'Next page' }).isDisabled(), 'no third page');
  await pager.getByRole('button', { name: 'Previous page' }).click();
  await pager.getByText('Page 1').waitFor();

  const create = region(page, 'Add a client');
  await create.getByLabel('Email').fill('ada@analytical.example');
  await create.getByLabel('Given name').fill('Ada');
  await create.getByLabel('Family name').fill('Byron');
  await create.getByRole('button', { name: 'Add client' }).click();
  await page.getByRole('status').filter({ hasText: 'Client Ada Byron (ada@analytical.example) created.' }).waitFor();

  const search = page.getByRole('search', { name: 'Clients' });
  await search.getByLabel('Search by').selectOption('email');
  await search.getByLabel('Value').fill('ADA@analytical.example');
  await search.getByRole('button', { name: 'Search' }).click();
  await body.nth(1).waitFor({ state: 'detached' });
  await row(page, 'ada@analytical.example').waitFor();
  assert.equal(await body.count(), 1, 'the search finds exactly the one client');
  await checkPage(c, 'clients');

  await page.getByRole('button', { name: 'Edit client ada@analytical.example' }).click();
  const edit = page.getByRole('form', { name: 'Edit client ada@analytical.example' });
  await edit.getByLabel('Family name').fill('Lovelace');
  await edit.getByRole('button', { name: 'Save' }).click();
  await row(page, 'Ada Lovelace').waitFor();
  const found = await ok(v1<{ data: { id: string; familyName: string }[] }>(ws.apiKey, 'GET', '/clients?email=ada@analytical.example'));
  assert.equal(found.data[0].familyName, 'Lovelace');

  await page.getByRole('button', { name: 'Delete client ada@analytical.example' }).click();
  await page.getByText('No client matches.').waitFor();
  assert.equal((await v1(ws.apiKey, 'GET', `/clients/${found.data[0].id}`)).status, 404);

  // On a phone: the table becomes labelled cards, and nothing scrolls sideways.
  const phone = await signedIn(t, { width: 390, height: 844 });
  await phone.page.goto(`/console/workspaces/${ws.id}/clients`);
  await heading(phone.page, 'Clients');
  await phone.page.locator('table.data tbody tr').nth(24).waitFor();
  assert.equal(await scrollsSideways(phone.page), false, 'no horizontal scroll at 390 px');
  await checkPage(phone, 'clients-phone', undefined, false);
  await phone.page.goto('/console/');
  await heading(phone.page, 'Workspaces');
  assert.equal(await scrollsSideways(phone.page), false, 'no horizontal scroll at 390 px (workspaces)');
});

test('companies: create, find by name, rename, delete; placeholders on their own pages', { timeout: TEST_MS }, async (t) => {
  const ws = await workspace('Companies Co');
  for (let i = 0; i < 26; i++)
    await ok(v1(ws.apiKey, 'POST', '/clients', { email: `p${i}@example.com`, givenName: 'P', familyName: `${i}` }));
  const c = await signedIn(t);
  const { page } = c;
  await page.goto(`/console/workspaces/${ws.id}/companies`);
  await heading(page, 'Companies');
  await page.getByText('No company matches.').waitFor();

  const create = region(page, 'Add a company');
  await create.getByLabel('Name').fill('Globex');
  await create.getByRole('button', { name: 'Add company' }).click();
  await row(page, 'Globex').waitFor();

  const search = page.getByRole('search', { name: 'Companies' });
  await search.getByLabel('Show').selectOption('all');
  await search.getByRole('button', { name: 'Search' }).click();
  const pager = page.getByRole('navigation', { name: 'Companies pages' });
  await pager.getByRole('button', { name: 'Next page' }).click();
  await pager.getByText('Page 2').waitFor();
  await search.getByLabel('Name').fill('Globex');
  await search.getByRole('button', { name: 'Search' }).click();
  await pager.waitFor({ state: 'detached' });
  await row(page, 'Globex').waitFor();
  assert.equal(await page.locator('table.data tbody tr').count(), 1);
  await checkPage(c, 'companies');

  await page.getByRole('button', { name: 'Rename company Globex' }).click();
  const edit = page.getByRole('form', { name: 'Rename company Globex' });
  await edit.getByLabel('Name').fill('Globex Corporation');
  await edit.getByRole('button', { name: 'Save' }).click();
  await page.getByRole('status').filter({ hasText: 'Company Globex Corporation saved.' }).waitFor();
  const companies = await ok(v1<{ data: { id: string }[] }>(ws.apiKey, 'GET', '/companies?name=Globex%20Corporation'));
  assert.equal(companies.data.length, 1);

  await search.getByLabel('Name').fill('Globex Corporation');
  await search.getByRole('button', { name: 'Search' }).click();
  await page.getByRole('button', { name: 'Delete company Globex Corporation' }).click();
  await page.getByText('No company matches.').waitFor();
  assert.equal((await v1(ws.apiKey, 'GET', `/companies/${companies.data[0].id}`)).status, 404);
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

test('messages: channels newest first, filtered by membership; a channel’s messages newest first, paged', {
  timeout: TEST_MS,
}, async (t) => {
  const ws = await workspace('Messages Co');
  const company = await ok(v1<{ id: string }>(ws.apiKey, 'POST', '/companies', { name: 'Initech' }));
  const client = await ok(
    v1<{ id: string }>(ws.apiKey, 'POST', '/clients', {
      email: 'ada@analytical.example',
      givenName: 'Ada',
      familyName: 'Lovelace',
      companyId: company.id,
    }),
  );
  const individual = await ok(
    v1<{ id: string }>(ws.apiKey, 'POST', '/message-channels', { membershipType: 'individual', clientId: client.id }),
  );
  await ok(v1(ws.apiKey, 'POST', '/message-channels', { membershipType: 'company', companyId: company.id }));
  for (let i = 0; i < 26; i++) {
    await ok(v1(ws.apiKey, 'POST', '/messages', { channelId: individual.id, senderId: client.id, text: `Message number ${i}` }));
  }
  const c = await signedIn(t);
  const { page } = c;
  await page.goto(`/console/workspaces/${ws.id}/messages`);
  await heading(page, /^Messages$/);
  const body = page.locator('table.data tbody tr');
  await row(page, 'Ada Lovelace').waitFor();
  assert.deepEqual(
    await body.locator('td[data-label="Membership"]').allTextContents(),
    ['company', 'individual'],
    'both channels, newest first',
  );
  await checkPage(c, 'message-channels');

  const search = page.getByRole('search', { name: 'Message channels' });
  await search.getByLabel('Membership').selectOption('company');
  await search.getByRole('button', { name: 'Show' }).click();
  await row(page, 'Ada Lovelace').waitFor({ state: 'detached' });
  assert.deepEqual(await body.locator('td[data-label="Membership"]').allTextContents(), ['company']);
  await search.getByLabel('Membership').selectOption('group');
  await search.getByRole('button', { name: 'Show' }).click();
  await page.getByText('No group channel.').waitFor();
  await search.getByLabel('Membership').selectOption('individual');
  await search.getByRole('button', { name: 'Show' }).click();

  await page.getByRole('link', { name: 'Messages of the individual channel of Ada Lovelace' }).click();
  await heading(page, 'Messages of the individual channel of Ada Lovelace');
  await body.nth(24).waitFor();
  assert.equal(await body.count(), 25, 'a page of 25');
  assert.equal(await body.first().locator('td[data-label="Message"]').textContent(), 'Message number 25', 'newest first');
  assert.equal(await body.first().locator('td[data-label="From"]').textContent(), 'Ada Lovelace', 'the sender by name');
  await checkPage(c, 'messages');
  const pager = page.getByRole('navigation', { name: 'Messages pages' });
  await pager.getByRole('button', { name: 'Next page' }).click();
  await pager.getByText('Page 2').waitFor();
  await body.nth(1).waitFor({ state: 'detached' });
  assert.deepEqual(await body.locator('td[data-label="Message"]').allTextContents(), ['Message number 0'], 'the oldest on page 2');

  await page.getByRole('link', { name: 'Back to the message channels' }).click();
  await heading(page, /^Messages$/);
});

test('tasks: listed with status, assignee and due date, filtered by status; mark one completed; templates listed', {
  timeout: TEST_MS,
}, async (t) => {
  const ws = await workspace('Tasks Co');
  const company = await ok(v1<{ id: string }>(ws.apiKey, 'POST', '/companies', { name: 'Globex' }));
  const client = await ok(
    v1<{ id: string }>(ws.apiKey, 'POST', '/clients', {
      email: 'hank@globex.example',
      givenName: 'Hank',
      familyName: 'Scorpio',
      companyId: company.id,
    }),
  );
  const letter = await ok(
    v1<{ id: string }>(ws.apiKey, 'POST', '/tasks', {
      name: 'Send the engagement letter',
      clientId: client.id,
      dueDate: '2031-03-15T12:00:00Z',
    }),
  );
  await ok(v1(ws.apiKey, 'POST', '/tasks', { name: 'File the annual return', companyId: company.id, status: 'inProgress' }));
  await ok(v1(ws.apiKey, 'POST', '/tasks', { name: 'Archive old records', status: 'completed' }));
  await ok(
    admin('POST', `/workspaces/${ws.id}/task-templates`, {
      name: 'Onboarding',
      subTaskTemplates: [{ name: 'Collect documents' }, { name: 'Sign the contract' }],
    }),
  );
  const c = await signedIn(t);
  const { page } = c;
  await page.goto(`/console/workspaces/${ws.id}/tasks`);
  await heading(page, 'Tasks');
  const tasks = region(page, 'Tasks');
  const letterRow = row(page, 'Send the engagement letter');
  await letterRow.getByRole('cell', { name: 'Hank Scorpio (Globex)' }).waitFor();
  await letterRow.getByText('todo', { exact: true }).waitFor();
  assert.match((await letterRow.locator('td[data-label="Due"]').textContent()) ?? '', /2031/);
  await row(page, 'File the annual return').getByRole('cell', { name: 'Globex', exact: true }).waitFor();
  await row(page, 'Archive old records').getByRole('cell', { name: 'no one' }).waitFor();
  const templates = region(page, 'Task templates');
  await templates.getByRole('row').filter({ hasText: 'Onboarding' }).getByText('Collect documents, Sign the contract').waitFor();
  await checkPage(c, 'tasks');

  const search = page.getByRole('search', { name: 'Tasks' });
  await search.getByLabel('Status').selectOption('completed');
  await search.getByRole('button', { name: 'Filter', exact: true }).click();
  await letterRow.waitFor({ state: 'detached' });
  assert.deepEqual(await tasks.locator('tbody td[data-label="Name"]').allTextContents(), ['Archive old records']);
  await search.getByRole('button', { name: 'Clear filters' }).click();
  await letterRow.waitFor();

  await letterRow.getByRole('button', { name: 'Mark completed: task Send the engagement letter' }).click();
  await page.getByRole('status').filter({ hasText: 'Task “Send the engagement letter” marked completed.' }).waitFor();
  await letterRow.getByText('completed', { exact: true }).waitFor();
  assert.equal((await ok(v1<{ status: string }>(ws.apiKey, 'GET', `/tasks/${letter.id}`))).status, 'completed');

  // On a phone: the task table becomes labelled cards, and nothing scrolls sideways.
  const phone = await signedIn(t, { width: 390, height: 844 });
  await phone.page.goto(`/console/workspaces/${ws.id}/tasks`);
  await heading(phone.page, 'Tasks');
  await row(phone.page, 'Send the engagement letter').getByText('Hank Scorpio (Globex)').waitFor();
  assert.equal(await scrollsSideways(phone.page), false, 'no horizontal scroll at 390 px');
  await checkPage(phone, 'tasks-phone', undefined, false);
});

test('notes: title, what it is on, updated; filtered by entity type and by client; their HTML is not rendered', {
  timeout: TEST_MS,
}, async (t) => {
  const ws = await workspace('Notes Co');
  const company = await ok(v1<{ id: string }>(ws.apiKey, 'POST', '/companies', { name: 'Umbrella' }));
  const client = await ok(
    v1<{ id: string }>(ws.apiKey, 'POST', '/clients', {
      email: 'alice@umbrella.example',
      givenName: 'Alice',
      familyName: 'Abernathy',
      companyId: company.id,
    }),
  );
  await ok(
    v1(ws.apiKey, 'POST', '/notes', {
      entityType: 'client',
      entityId: client.id,
      title: 'Prefers email',
      content: '<p>Never call <img src="x" alt="before noon"></p>',
    }),
  );
  await ok(v1(ws.apiKey, 'POST', '/notes', { entityType: 'company', entityId: company.id, title: 'Renewal in March' }));
  const c = await signedIn(t);
  const { page } = c;
  await page.goto(`/console/workspaces/${ws.id}/notes`);
  await heading(page, 'Notes');
  const titles = page.locator('table.data tbody td[data-label="Title"]');
  await row(page, 'Prefers email').getByRole('cell', { name: 'Alice Abernathy' }).waitFor();
  await row(page, 'Renewal in March').getByRole('cell', { name: 'Umbrella' }).waitFor();
  assert.deepEqual(await titles.allTextContents(), ['Renewal in March', 'Prefers email'], 'newest first');
  assert.equal(await page.locator('main img').count(), 0, 'the note’s HTML is not rendered');
  assert.ok(!(await page.content()).includes('Never call'), 'nor shown');
  await checkPage(c, 'notes');

  const search = page.getByRole('search', { name: 'Notes' });
  await search.getByLabel('On').selectOption('company');
  await search.getByRole('button', { name: 'Filter', exact: true }).click();
  await row(page, 'Prefers email').waitFor({ state: 'detached' });
  assert.deepEqual(await titles.allTextContents(), ['Renewal in March']);

  await search.getByLabel('On').selectOption('client');
  await search.getByLabel('Client or company id').fill(client.id);
  await search.getByRole('button', { name: 'Filter', exact: true }).click();
  await row(page, 'Renewal in March').waitFor({ state: 'detached' });
  assert.deepEqual(await titles.allTextContents(), ['Prefers email']);

  await search.getByRole('button', { name: 'Clear filters' }).click();
  await row(page, 'Renewal in March').waitFor();
});

test('files: channels newest first, filtered by membership and client; a channel’s files, folders and links, filtered by folder; names not rendered as HTML', {
  timeout: TEST_MS,
}, async (t) => {
  const ws = await workspace('Files Co');
  const company = await ok(v1<{ id: string }>(ws.apiKey, 'POST', '/companies', { name: 'Vandelay' }));
  const client = await ok(
    v1<{ id: string }>(ws.apiKey, 'POST', '/clients', {
      email: 'art@vandelay.example',
      givenName: 'Art',
      familyName: 'Vandelay',
      companyId: company.id,
    }),
  );
  const channel = await ok(v1<{ id: string }>(ws.apiKey, 'POST', '/channels/files', { membershipType: 'individual', clientId: client.id }));
  await ok(v1(ws.apiKey, 'POST', '/channels/files', { membershipType: 'company', companyId: company.id }));
  await ok(v1(ws.apiKey, 'POST', '/files/folder', { channelId: channel.id, path: 'Reports' }));
  const report = await ok(v1<{ uploadUrl: string }>(ws.apiKey, 'POST', '/files/file', { channelId: channel.id, path: 'Reports/Q3.txt' }));
  const upload = new URL(report.uploadUrl);
  const put = await fetch(`${server.base}${upload.pathname}${upload.search}`, {
    method: 'PUT',
    headers: { 'content-type': 'text/plain' },
    body: 'hello, files',
    signal: AbortSignal.timeout(WAIT_MS),
  });
  assert.equal(put.status, 200, await put.text());
  await ok(v1(ws.apiKey, 'POST', '/files/link', { channelId: channel.id, path: 'Site', linkUrl: 'https://example.com/x' }));
  await ok(v1(ws.apiKey, 'POST', '/files/file', { channelId: channel.id, path: '<img src=x alt=evil>.txt' }));

  const c = await signedIn(t);
  const { page } = c;
  await page.goto(`/console/workspaces/${ws.id}/files`);
  await heading(page, /^Files$/);
  const body = page.locator('table.data tbody tr');
  await row(page, 'Art Vandelay').waitFor();
  assert.deepEqual(
    await body.locator('td[data-label="Membership"]').allTextContents(),
    ['company', 'individual'],
    'both channels, newest first',
  );
  await checkPage(c, 'file-channels');

  const search = page.getByRole('search', { name: 'File channels' });
  await search.getByLabel('Membership').selectOption('company');
  await search.getByRole('button', { name: 'Filter', exact: true }).click();
  await row(page, 'Art Vandelay').waitFor({ state: 'detached' });
  assert.deepEqual(await body.locator('td[data-label="Membership"]').allTextContents(), ['company']);
  await search.getByLabel('Membership').selectOption('');
  await search.getByLabel('Client id').fill(client.id);
  await search.getByRole('button', { name: 'Filter', exact: true }).click();
  await row(page, 'Art Vandelay').waitFor();
  assert.deepEqual(await body.locator('td[data-label="Membership"]').allTextContents(), ['individual'], 'the client’s individual channel');

  await page.getByRole('link', { name: 'Files of the individual file channel of Art Vandelay' }).click();
  await heading(page, 'Files of the individual file channel of Art Vandelay');
  const paths = body.locator('td[data-label="Path"]');
  await row(page, 'Reports/Q3.txt').waitFor();
  assert.deepEqual(await paths.allTextContents(), ['<img src=x alt=evil>.txt', 'Site', 'Reports/Q3.txt', 'Reports'], 'newest first');
  const q3 = row(page, 'Reports/Q3.txt');
  assert.deepEqual(
    [
      await q3.locator('td[data-label="Type"]').textContent(),
      await q3.locator('td[data-label="Status"]').textContent(),
      await q3.locator('td[data-label="Size"]').textContent(),
    ],
    ['file', 'completed', '12 B'],
  );
  assert.equal(await row(page, '<img').locator('td[data-label="Status"]').textContent(), 'pending', 'not uploaded yet');
  assert.equal(await row(page, 'Site').locator('td[data-label="Type"]').textContent(), 'link');
  assert.equal(await row(page, 'Site').getByRole('link').count(), 0, 'a link’s target shown, not followed');
  assert.equal(await page.locator('main img').count(), 0, 'a name is text, never HTML');
  await checkPage(c, 'files');

  const files = page.getByRole('search', { name: 'Files' });
  await files.getByLabel('Inside folder').fill('Reports');
  await files.getByRole('button', { name: 'Show' }).click();
  await row(page, 'Site').waitFor({ state: 'detached' });
  assert.deepEqual(await paths.allTextContents(), ['Reports/Q3.txt']);
  await files.getByRole('button', { name: 'Whole channel' }).click();
  await row(page, 'Site').waitFor();

  await page.getByRole('link', { name: 'Back to the file channels' }).click();
  await heading(page, /^Files$/);
});

test('forms: forms with their fields count; responses filtered by form, client and status', { timeout: TEST_MS }, async (t) => {
  const ws = await workspace('Forms Co');
  const company = await ok(v1<{ id: string }>(ws.apiKey, 'POST', '/companies', { name: 'Kramerica' }));
  const clientOf = (givenName: string) =>
    ok(
      v1<{ id: string }>(ws.apiKey, 'POST', '/clients', {
        email: `${givenName.toLowerCase()}@kramerica.example`,
        givenName,
        familyName: 'Kramer',
        companyId: company.id,
      }),
    );
  const cosmo = await clientOf('Cosmo');
  const babs = await clientOf('Babs');
  const intake = await ok(
    admin<{ id: string }>('POST', `/workspaces/${ws.id}/forms`, {
      name: 'Intake',
      formFields: [
        { title: 'E-mail', type: 'email', isRequired: true },
        { title: 'Notes', type: 'longAnswer' },
      ],
    }),
  );
  const survey = await ok(
    admin<{ id: string }>('POST', `/workspaces/${ws.id}/forms`, { name: 'Survey', formFields: [{ title: 'Rating', type: 'number' }] }),
  );
  await ok(
    v1(ws.apiKey, 'POST', '/form-responses', { formId: intake.id, clientCompanyIds: [{ clientId: cosmo.id, companyId: company.id }] }),
  );
  await ok(
    v1(ws.apiKey, 'POST', '/form-responses', { formId: survey.id, clientCompanyIds: [{ clientId: babs.id, companyId: company.id }] }),
  );

  const c = await signedIn(t);
  const { page } = c;
  await page.goto(`/console/workspaces/${ws.id}/forms`);
  await heading(page, 'Forms');
  const forms = region(page, 'Forms');
  await forms.getByRole('row').filter({ hasText: 'Intake' }).locator('td[data-label="Fields"]').getByText('2', { exact: true }).waitFor();
  assert.deepEqual(await forms.locator('tbody td[data-label="Name"]').allTextContents(), ['Survey', 'Intake'], 'newest first');
  assert.equal(await forms.getByRole('row').filter({ hasText: 'Survey' }).locator('td[data-label="Requested"]').textContent(), '1');
  const responses = region(page, 'Form responses');
  const cosmos = responses.getByRole('row').filter({ hasText: 'Cosmo Kramer' });
  await cosmos.getByText('pending', { exact: true }).waitFor();
  assert.equal(await cosmos.locator('td[data-label="Form"]').textContent(), 'Intake');
  assert.equal(await cosmos.locator('td[data-label="Submitted"]').textContent(), 'not yet');
  const formNames = responses.locator('tbody td[data-label="Form"]');
  assert.deepEqual(await formNames.allTextContents(), ['Survey', 'Intake'], 'newest first');
  await checkPage(c, 'forms');

  const search = page.getByRole('search', { name: 'Form responses' });
  await search.getByLabel('Form').selectOption({ label: 'Intake' });
  await search.getByRole('button', { name: 'Filter', exact: true }).click();
  await responses.getByRole('row').filter({ hasText: 'Babs Kramer' }).waitFor({ state: 'detached' });
  assert.deepEqual(await formNames.allTextContents(), ['Intake']);

  await search.getByRole('button', { name: 'Clear filters' }).click();
  await cosmos.waitFor();
  await search.getByLabel('Client id').fill(babs.id);
  await search.getByRole('button', { name: 'Filter', exact: true }).click();
  await cosmos.waitFor({ state: 'detached' });
  assert.deepEqual(await formNames.allTextContents(), ['Survey']);

  await search.getByLabel('Client id').fill('');
  await search.getByLabel('Status').selectOption('completed');
  await search.getByRole('button', { name: 'Filter', exact: true }).click();
  await responses.getByText('No form response matches these filters.').waitFor();
});

test('contracts: contracts with recipient, status and dates, filtered by status and client; templates listed', {
  timeout: TEST_MS,
}, async (t) => {
  const ws = await workspace('Contracts Co');
  const company = await ok(v1<{ id: string }>(ws.apiKey, 'POST', '/companies', { name: 'Pendant Publishing' }));
  const clientOf = (givenName: string, familyName: string) =>
    ok(
      v1<{ id: string }>(ws.apiKey, 'POST', '/clients', {
        email: `${givenName.toLowerCase()}@pendant.example`,
        givenName,
        familyName,
        companyId: company.id,
      }),
    );
  const elaine = await clientOf('Elaine', 'Benes');
  const jerry = await clientOf('Jerry', 'Seinfeld');
  const nda = await ok(
    admin<{ id: string }>('POST', `/workspaces/${ws.id}/contract-templates`, {
      name: 'NDA',
      fields: [
        { id: 'fee', type: 'text', inputType: 'variable', label: 'Fee' },
        { id: 'sig', type: 'signature', inputType: 'client' },
      ],
    }),
  );
  await ok(v1(ws.apiKey, 'POST', '/contracts', { contractTemplateId: nda.id, clientId: elaine.id, variableValues: { fee: '$100' } }));
  await ok(v1(ws.apiKey, 'POST', '/contracts', { contractTemplateId: nda.id, clientId: jerry.id, variableValues: { fee: '$200' } }));

  const c = await signedIn(t);
  const { page } = c;
  await page.goto(`/console/workspaces/${ws.id}/contracts`);
  await heading(page, 'Contracts');
  const contracts = region(page, 'Contracts');
  const elaines = contracts.getByRole('row').filter({ hasText: 'Elaine Benes' });
  await elaines.getByText('pending', { exact: true }).waitFor();
  assert.equal(await elaines.locator('td[data-label="Name"]').textContent(), 'NDA');
  assert.match((await elaines.locator('td[data-label="Recipient"]').textContent()) ?? '', /Pendant Publishing/);
  assert.equal(await elaines.locator('td[data-label="Signed"]').textContent(), 'not yet');
  const recipients = contracts.locator('tbody td[data-label="Recipient"]');
  assert.deepEqual(
    (await recipients.allTextContents()).map((text) => text.replace('Pendant Publishing', '')),
    ['Jerry Seinfeld', 'Elaine Benes'],
    'newest first',
  );
  const templates = region(page, 'Contract templates');
  const ndaRow = templates.getByRole('row').filter({ hasText: 'NDA' });
  await ndaRow.locator('td[data-label="Sent"]').getByText('2', { exact: true }).waitFor();
  assert.equal(await ndaRow.locator('td[data-label="Fields"]').textContent(), '2');
  await checkPage(c, 'contracts');

  const search = page.getByRole('search', { name: 'Contracts' });
  await search.getByLabel('Client id').fill(jerry.id);
  await search.getByRole('button', { name: 'Filter', exact: true }).click();
  await elaines.waitFor({ state: 'detached' });
  assert.equal(await recipients.count(), 1);
  assert.match((await recipients.first().textContent()) ?? '', /^Jerry Seinfeld/);

  await search.getByRole('button', { name: 'Clear filters' }).click();
  await elaines.waitFor();
  await search.getByLabel('Client id').fill('');
  await search.getByLabel('Status').selectOption('signed');
  await search.getByRole('button', { name: 'Filter', exact: true }).click();
  await contracts.getByText('No contract matches these filters.').waitFor();
  await search.getByLabel('Status').selectOption('pending');
  await search.getByRole('button', { name: 'Filter', exact: true }).click();
  await elaines.waitFor();
  assert.equal(await recipients.count(), 2);
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

// Rule (issue 42, point 13): without SMTP_URL (this server has none) the outbox page is local development's inbox: each
// e-mail's text, its link (an invite's here) one click away.
test('e-mail outbox: without SMTP_URL, an invite e-mail with its text and its link', { timeout: TEST_MS }, async (t) => {
  const ws = await workspace('Outbox Co');
  const invited = await ok(
    v1<{ inviteUrl: string }>(ws.apiKey, 'POST', '/clients?sendInvite=true', {
      email: 'lin@example.com',
      givenName: 'Lin',
      familyName: 'Vite',
    }),
  );
  const c = await signedIn(t);
  const { page } = c;
  await page.goto(`/console/workspaces/${ws.id}/clients`);
  await page.getByRole('navigation', { name: 'Workspace Outbox Co' }).getByRole('link', { name: 'E-mail outbox' }).click();
  await heading(page, 'E-mail outbox');
  const mail = row(page, 'lin@example.com');
  await mail.getByText('You are invited to your client portal', { exact: true }).waitFor();
  await mail.getByText('queued', { exact: true }).waitFor();
  await mail.getByText('Text').click();
  const link = mail.getByRole('link', { name: invited.inviteUrl });
  await link.waitFor();
  assert.equal(await link.getAttribute('href'), invited.inviteUrl);
  assert.match((await mail.locator('pre').textContent()) ?? '', /^Hello Lin,\n\nYou are invited to your client portal\./);
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

test('invoices and subscriptions: mark an invoice paid, void another, finalise a draft, cancel a subscription', {
  timeout: TEST_MS,
}, async (t) => {
  const ws = await workspace('Billing Co');
  const client = await ok(
    v1<{ id: string }>(ws.apiKey, 'POST', '/clients', { email: 'payer@example.com', givenName: 'Pay', familyName: 'Er' }),
  );
  const lines = [{ amount: 125_00, quantity: 2, description: 'Consulting' }];
  const toPay = await ok(
    v1<{ id: string; number: string }>(ws.apiKey, 'POST', '/invoices', { clientId: client.id, lineItems: lines, daysUntilDue: 14 }),
  );
  const toVoid = await ok(
    v1<{ id: string; number: string }>(ws.apiKey, 'POST', '/invoices', { clientId: client.id, lineItems: lines, daysUntilDue: 7 }),
  );
  const draft = await ok(
    v1<{ id: string }>(ws.apiKey, 'POST', '/invoices', { clientId: client.id, lineItems: lines, daysUntilDue: 7, createDraft: true }),
  );
  const subscription = await ok(
    v1<{ id: string }>(ws.apiKey, 'POST', '/subscriptions', { clientId: client.id, lineItems: lines, daysUntilDue: 7, interval: 'month' }),
  );
  const c = await signedIn(t);
  const { page } = c;
  await page.goto(`/console/workspaces/${ws.id}/billing`);
  await heading(page, 'Invoices & subscriptions');

  const paying = row(page, toPay.number).filter({ has: page.getByRole('button', { name: `Mark paid: invoice ${toPay.number}` }) });
  await paying.waitFor();
  await checkPage(c, 'billing');
  await paying.getByRole('button', { name: `Mark paid: invoice ${toPay.number}` }).click();
  await page
    .getByRole('status')
    .filter({ hasText: `Invoice ${toPay.number} marked paid.` })
    .waitFor();
  assert.equal((await ok(v1<{ status: string }>(ws.apiKey, 'GET', `/invoices/${toPay.id}`))).status, 'paid');

  await page.getByRole('button', { name: `Void invoice ${toVoid.number}` }).click();
  await page
    .getByRole('status')
    .filter({ hasText: `Invoice ${toVoid.number} voided.` })
    .waitFor();
  assert.equal((await ok(v1<{ status: string }>(ws.apiKey, 'GET', `/invoices/${toVoid.id}`))).status, 'void');

  // The subscription billed its first period (0003) at once: the draft, numbered only now, takes 0004.
  await page.getByRole('button', { name: `Finalise draft invoice ${draft.id}` }).click();
  await page
    .getByRole('status')
    .filter({ hasText: `Draft invoice ${draft.id} finalised as invoice 0004.` })
    .waitFor();
  const finalized = await ok(v1<{ status: string; number: string }>(ws.apiKey, 'GET', `/invoices/${draft.id}`));
  assert.deepEqual([finalized.status, finalized.number], ['open', '0004']);

  await page.getByRole('button', { name: `Cancel subscription ${subscription.id}` }).click();
  await page.getByRole('status').filter({ hasText: 'Subscription cancelled.' }).waitFor();
  assert.equal((await ok(v1<{ status: string }>(ws.apiKey, 'GET', `/subscriptions/${subscription.id}`))).status, 'cancelled');
  await screenshot(page, 'billing-done');
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
