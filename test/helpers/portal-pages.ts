// What every browser journey through the signed-in portal needs: a `portal serve` process (SQLite by default, or a
// PostgreSQL database of its own; its own directory and port, the admin surface on), a workspace and its key, a client
// invited through the API who accepts in the browser and lands on the home page, a member of staff signed in by an
// e-mailed link, and `arrived`: the checks every page passes (its one h1 focused, nothing sideways at 320 px, axe
// clean, no page error or CSP violation, nothing from another origin) with its screenshot.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { ARTIFACTS, WAIT_MS, assertAccessible, ensureBuilt, launchBrowser, scrollsSideways } from './browser.js';
import type { Backend } from './harness.js';
import { type Server, freePort, jsonRequest, serve, stop } from './server.js';

export const ADMIN_TOKEN = 'portal-pages-test-admin-token-0123456789';
export const PASSWORD = 'correct horse battery staple';

/** A running server and a browser, for one test file; `close` after it. */
export interface PortalServer {
  server: Server;
  browser: Browser;
  /** The server's DATABASE_URL (for `portal …` commands on its database: custom fields are made only by the CLI). */
  databaseUrl?: string;
  /** A JSON request to the server (a workspace key in `headers`, or the admin token). */
  http: <T>(method: string, path: string, headers: Record<string, string>, body?: unknown) => Promise<{ status: number; body: T }>;
  close: () => Promise<void>;
}

export interface PortalOptions {
  /**
   * The server's database: a SQLite file (the default), or on PostgreSQL a database of its own cloned from the
   * migrated template (`migratedDatabase`; PORTAL_TEST_POSTGRES_URL must be set), dropped by `close`.
   */
  backend?: Backend;
  /** More of the server's environment (limits…). */
  env?: Record<string, string>;
}

export async function startPortal({ backend = 'sqlite', env = {} }: PortalOptions = {}): Promise<PortalServer> {
  ensureBuilt();
  const dir = mkdtempSync(join(tmpdir(), 'portal-pages-'));
  // The harness (and the app it builds) is loaded only for PostgreSQL: a SQLite journey needs none of it.
  const database =
    backend === 'sqlite'
      ? { url: `sqlite:${join(dir, 'portal.db')}`, drop: async () => {} }
      : await (await import('./harness.js')).migratedDatabase(backend);
  const port = await freePort();
  const server = await serve({
    DATABASE_URL: database.url,
    PORTAL_ADMIN_TOKEN: ADMIN_TOKEN,
    PORT: String(port),
    PORTAL_URL: `http://127.0.0.1:${port}`,
    FILES_DIR: join(dir, 'files'),
    ...env,
  });
  const browser = await launchBrowser();
  return {
    server,
    browser,
    databaseUrl: database.url,
    http: (method, path, headers, body) => jsonRequest(server.base, method, path, headers, body),
    async close() {
      await browser.close();
      await stop(server.child);
      await database.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A new workspace (a sandbox: its processor takes test cards) and its key; `pages` is its portal's address. */
export async function newWorkspace(portal: PortalServer, name = 'Acme') {
  const created = await portal.http<{ workspaceId: string; apiKey: string }>(
    'POST',
    '/admin/workspaces',
    { authorization: `Bearer ${ADMIN_TOKEN}` },
    { name, sandbox: true },
  );
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const { workspaceId, apiKey } = created.body;
  /** A `/v1` call with the workspace's key; a non-2xx answer fails the test with its body. */
  const call = async <T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<T> => {
    const answer = await portal.http<T>(method, path, { 'x-api-key': apiKey }, body);
    assert.ok(answer.status >= 200 && answer.status < 300, `${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body;
  };
  /** A call on the admin surface for this workspace (forms, contract templates, installs are made there). */
  const admin = async <T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<T> => {
    const answer = await portal.http<T>(
      method,
      `/admin/workspaces/${workspaceId}${path}`,
      { authorization: `Bearer ${ADMIN_TOKEN}` },
      body,
    );
    assert.ok(answer.status >= 200 && answer.status < 300, `${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body;
  };
  return { workspaceId, apiKey, pages: `${portal.server.base}/portal/${workspaceId}`, call, admin };
}

/** One browser tab and what it saw: every request's URL, page errors and CSP violations. */
export interface Visit {
  context: BrowserContext;
  page: Page;
  requests: string[];
  problems: string[];
}

/** A new browser context of `width` px (320: a phone; 1280: a laptop), its tab watched. Closed by `close`. */
export async function visit(portal: PortalServer, width = 320): Promise<Visit> {
  const context = await portal.browser.newContext({ viewport: { width, height: 800 }, baseURL: portal.server.base });
  context.setDefaultTimeout(WAIT_MS);
  context.setDefaultNavigationTimeout(WAIT_MS);
  const page = await context.newPage();
  const v: Visit = { context, page, requests: [], problems: [] };
  page.on('request', (request) => v.requests.push(request.url()));
  page.on('pageerror', (error) => v.problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) v.problems.push(`CSP: ${message.text()}`);
  });
  return v;
}

/**
 * The page whose h1 is `title` is open: its heading has the focus (moved there on every route change), nothing is
 * still loading (unless `loading`: the page pictured while its reads are held), nothing scrolls sideways, axe finds no WCAG A/AA violation, no page error; a screenshot `portal-<name>.png`.
 */
export async function arrived(v: Visit, name: string, title: string, { loading = false } = {}) {
  const heading = v.page.getByRole('heading', { level: 1, name: title, exact: true });
  await heading.waitFor({ timeout: WAIT_MS });
  assert.equal(await v.page.locator('h1').count(), 1, `${name}: one h1`);
  await headingFocused(v, title, loading);
  assert.equal(await scrollsSideways(v.page), false, `${name}: no sideways scrolling`);
  await checkPage(v, name);
}

/**
 * The page whose h1 is `title` is open, its heading focused: what `arrived` checks first, without its screenshot and axe
 * (a journey's second backend, where they would only repeat the first's). Its arguments are `arrived`'s.
 */
export async function reached(v: Visit, _name: string, title: string) {
  await v.page.getByRole('heading', { level: 1, name: title, exact: true }).waitFor({ timeout: WAIT_MS });
  await headingFocused(v, title);
}

/**
 * The page's heading `title` has the focus and nothing on the page is still loading (the kit's `Loading`, class
 * `loading`): what a person waits for before reading the page, so no journey reads a list before its rows come.
 */
async function headingFocused(v: Visit, title: string, loading = false) {
  await v.page.waitForFunction(
    ([text, loading]) =>
      document.activeElement?.tagName === 'H1' &&
      document.activeElement.textContent === text &&
      (loading || !document.querySelector('.loading')),
    [title, loading] as const,
    { timeout: WAIT_MS },
  );
}

/** A journey's arrival on a page: `arrived` (screenshot and axe) on its first backend (`shots`), else `reached`. */
export function land(v: Visit, shots: boolean, name: string, title: string) {
  return shots ? arrived(v, name, title) : reached(v, name, title);
}

/** The checks of `arrived` for a page already open (after a change on it): screenshot, axe, no problem. */
export async function checkPage(v: Visit, name: string) {
  mkdirSync(ARTIFACTS, { recursive: true });
  await v.page.screenshot({ path: join(ARTIFACTS, `portal-${name}.png`), fullPage: true, timeout: WAIT_MS });
  await assertAccessible(v.page, name, { everyWcag: true });
  assert.deepEqual(v.problems, [], `${name}: no page error, no Content-Security-Policy violation`);
}

/** Every request the tab made went to the server's own origin. */
export function assertSameOrigin(portal: PortalServer, v: Visit) {
  assert.deepEqual(
    v.requests.filter((url) => !url.startsWith(`${portal.server.base}/`)),
    [],
    'no request left the origin',
  );
}

/**
 * A client created with the workspace's key and invited; in `v`'s tab they accept the invite with a password and
 * land on the portal's home page. Returns the client's id.
 */
export async function signedInClient(
  ws: Awaited<ReturnType<typeof newWorkspace>>,
  v: Visit,
  person: { email: string; givenName: string; familyName: string; companyId?: string },
): Promise<string> {
  const invited = await ws.call<{ id: string; inviteUrl: string }>('POST', '/v1/clients?sendInvite=true', person);
  await v.page.goto(invited.inviteUrl);
  await v.page.getByLabel('Choose a password').fill(PASSWORD);
  await v.page.getByRole('button', { name: 'Set the password and continue' }).click();
  await v.page.getByRole('heading', { level: 1, name: 'Home', exact: true }).waitFor({ timeout: WAIT_MS });
  return invited.id;
}

/**
 * A member of staff (an internal user, made on the admin surface: /v1 has no way to create one; `companyAccessList`
 * limits it to those companies) signs in in `v`'s tab as people do: "I am staff", a link by e-mail, read here from
 * the outbox (the server has no SMTP_URL), opened and pressed; they land on the home page. Returns their id.
 */
export async function signedInStaff(
  portal: PortalServer,
  ws: Awaited<ReturnType<typeof newWorkspace>>,
  v: Visit,
  person: { email: string; givenName: string; familyName: string; role?: 'admin' | 'staff'; companyAccessList?: string[] },
): Promise<string> {
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
  const user = await portal.http<{ id: string }>('POST', `/admin/workspaces/${ws.workspaceId}/internal-users`, admin, person);
  assert.equal(user.status, 201, JSON.stringify(user.body));
  await v.page.goto(`${ws.pages}/sign-in`);
  await v.page.getByRole('radio', { name: 'staff' }).check();
  await v.page.getByRole('textbox', { name: 'E-mail' }).fill(person.email);
  await v.page.getByRole('button', { name: 'E-mail me a sign-in link' }).click();
  const deadline = Date.now() + WAIT_MS;
  let link: string | undefined;
  while (!link) {
    const outbox = await portal.http<{ data: { to: string; text?: string }[] }>('GET', `/admin/workspaces/${ws.workspaceId}/outbox`, admin);
    const text = outbox.body.data.find((mail) => mail.to === person.email && mail.text?.includes('/magic-link#'))?.text;
    link = text ? /(https?:\/\/\S+\/magic-link#\S+)/.exec(text)?.[1] : undefined;
    if (!link) {
      assert.ok(Date.now() < deadline, `a sign-in link to ${person.email}`);
      await sleep(100);
    }
  }
  // The link names PORTAL_URL: the tab opens it on the server it is watching.
  const url = new URL(link);
  await v.page.goto(`${ws.pages.replace(/\/portal\/.*$/, '')}${url.pathname}${url.hash}`);
  await v.page.getByRole('button', { name: 'Sign in' }).click();
  await v.page.getByRole('heading', { level: 1, name: 'Home', exact: true }).waitFor({ timeout: WAIT_MS });
  return user.body.id;
}

/**
 * A table's rows, each row's cells joined by " | ", once nothing on the page is loading (a list shows its last answer
 * while it reads the next: the kit says so in a status, class `loading`).
 */
export async function rowsOf(table: Locator): Promise<string[]> {
  await table.page().waitForFunction(() => !document.querySelector('.loading'), null, { timeout: WAIT_MS });
  return table
    .locator('tbody tr')
    .evaluateAll((rows) => rows.map((row) => [...row.querySelectorAll('td')].map((cell) => (cell.textContent ?? '').trim()).join(' | ')));
}
