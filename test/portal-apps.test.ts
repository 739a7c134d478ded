// Rule (issue 44, point 6): the apps installed in a workspace are in its portal: an app's page opens inside it, in a
// sandboxed frame handed the signed-in person's session token as the hosted portal hands it (`?token=`), and acts for
// that person through the API; links open in a new tab. An app developer points an install at a local server and
// watches it act: here the app is a node:http server on 127.0.0.1 using the official SDK, as an app would.
// In headless Chromium against a `portal serve` process: at 320 px, each page at 1280 px too.
import assert from 'node:assert/strict';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { assemblyApi } from '@assembly-js/node-sdk';
import {
  ADMIN_TOKEN,
  type PortalServer,
  type Visit,
  arrived,
  newWorkspace,
  signedInClient,
  startPortal,
  visit,
} from './helpers/portal-pages.js';

const APP_ID = '7b0e4a7e-8c1f-4d55-9f3a-2d5c3a1e9b11';

let portal: PortalServer;
before(async () => {
  portal = await startPortal();
});
after(() => portal?.close());

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * The app: its page takes the `token` the portal gives, opens the SDK with it and its own key (which decrypts it and
 * learns the API's address from it), asks the API who it acts for, and says so; a script on the page shows it runs.
 */
async function startApp(appKey: () => string): Promise<{ server: Server; origin: string; tokens: string[] }> {
  const tokens: string[] = [];
  const server = createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://app.invalid');
    if (url.pathname !== '/dashboard') return response.writeHead(404).end();
    const token = url.searchParams.get('token') ?? '';
    tokens.push(token);
    let said: string;
    try {
      const sdk = assemblyApi({ apiKey: appKey(), token });
      const payload = await sdk.getTokenPayload();
      const client = await sdk.retrieveClient({ id: payload.clientId });
      said = `Acting for ${client.givenName} ${client.familyName} (${client.email})`;
    } catch (error) {
      said = `The token was refused: ${(error as Error).message}`;
    }
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(
      `<!doctype html><html lang="en"><title>Dashboard</title><h1>Team dashboard</h1><p id="who">${escapeHtml(said)}</p>` +
        '<p id="script">Scripts do not run.</p><script>document.getElementById("script").textContent = "Scripts run.";</script>',
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, tokens };
}

test('a client opens an installed app in the portal; it acts for them; links open out', { timeout: 120_000 }, async (t) => {
  const ws = await newWorkspace(portal, 'Acme');
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
  const adminCall = async <T>(method: string, path: string, body: unknown): Promise<T> => {
    const answer = await portal.http<T>(method, `/admin/workspaces/${ws.workspaceId}${path}`, admin, body);
    assert.ok(answer.status < 300, `${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body;
  };
  let appKey = '';
  const app = await startApp(() => appKey);
  t.after(() => new Promise((resolve) => app.server.close(resolve)));

  // The developer's install points at the app on their machine; the portal is given the app's key.
  appKey = (await adminCall<{ apiKey: string }>('POST', '/keys', { appId: APP_ID })).apiKey;
  const dashboard = await adminCall<{ id: string }>('POST', '/installs', {
    type: 'custom',
    name: 'Team dashboard',
    appId: APP_ID,
    url: `${app.origin}/dashboard`,
  });
  await adminCall('PUT', `/installs/${dashboard.id}/portal-key`, { apiKey: appKey });
  await adminCall('POST', '/installs', { type: 'link', name: 'Handbook', url: 'https://handbook.example.com/start' });
  await adminCall('POST', '/installs', { type: 'custom', name: 'Not yet published', appId: APP_ID, url: `${app.origin}/x`, draft: true });
  const company = await ws.call<{ id: string }>('POST', '/v1/companies', { name: 'Hopper & Co' });
  const reports = await adminCall<{ id: string }>('POST', '/installs', { type: 'manual', name: 'Reports' });
  await ws.call('POST', `/v1/installs/${reports.id}/connections`, {
    type: 'link',
    content: 'https://reports.example.com/hopper',
    companyId: company.id,
  });

  const v = await visit(portal, 320);
  t.after(() => v.context.close());
  const { page } = v;
  await signedInClient(ws, v, { email: 'grace@acme.test', givenName: 'Grace', familyName: 'Hopper', companyId: company.id });

  await page.getByRole('navigation', { name: 'Portal' }).getByRole('link', { name: 'Apps' }).click();
  await arrived(v, 'apps-320', 'Apps');
  const handbook = page.getByRole('link', { name: 'Handbook (opens in a new tab)' });
  assert.deepEqual(
    [await handbook.getAttribute('href'), await handbook.getAttribute('target'), await handbook.getAttribute('rel')],
    ['https://handbook.example.com/start', '_blank', 'noopener noreferrer'],
  );
  await page.getByRole('link', { name: 'reports.example.com (opens in a new tab)' }).waitFor();
  assert.equal(await page.getByText('Not yet published').count(), 0, 'a draft is not the client’s');

  await page.getByRole('link', { name: 'Team dashboard' }).click();
  await arrived(v, 'apps-app-320', 'Team dashboard');
  const frame = page.frameLocator('iframe[title="Team dashboard"]');
  await frame.getByText('Acting for Grace Hopper (grace@acme.test)').waitFor();
  await frame.getByText('Scripts run.').waitFor();
  const iframe = page.locator('iframe[title="Team dashboard"]');
  assert.equal(await iframe.getAttribute('sandbox'), 'allow-scripts allow-forms allow-same-origin', 'another origin: its own storage');
  const src = new URL((await iframe.getAttribute('src')) ?? '');
  assert.equal(`${src.origin}${src.pathname}`, `${app.origin}/dashboard`);
  assert.deepEqual(app.tokens, [src.searchParams.get('token')], 'the app got the token of the frame’s address, once');
  assert.match(app.tokens[0], /^[0-9a-f]{64,}$/, 'a session token as the SDK decrypts it');

  // The page's policy lets it frame the installed apps' origin, and no other.
  const policy = (await page.request.get(`${ws.pages}/apps`)).headers()['content-security-policy'];
  assert.match(policy, new RegExp(`frame-src 'self' ${app.origin.replace(/\./g, '\\.')};`));
  assertOnlyTo(v, [portal.server.base, app.origin]);

  // At 1280 px: the list and the app.
  const wide = await visit(portal, 1280);
  t.after(() => wide.context.close());
  await wide.context.addCookies(await v.context.cookies());
  await wide.page.goto(`${ws.pages}/apps`);
  await arrived(wide, 'apps-1280', 'Apps');
  await wide.page.goto(`${ws.pages}/apps/${dashboard.id}`);
  await arrived(wide, 'apps-app-1280', 'Team dashboard');
  await wide.page.frameLocator('iframe[title="Team dashboard"]').getByText('Acting for Grace Hopper (grace@acme.test)').waitFor();
  assertOnlyTo(wide, [portal.server.base, app.origin]);
});

test('no app: the page says so; an unknown one is not found', { timeout: 60_000 }, async (t) => {
  const ws = await newWorkspace(portal, 'Bare');
  const v = await visit(portal, 320);
  t.after(() => v.context.close());
  await signedInClient(ws, v, { email: 'ada@bare.test', givenName: 'Ada', familyName: 'Lovelace' });
  await v.page.goto(`${ws.pages}/apps`);
  await arrived(v, 'apps-none-320', 'Apps');
  await v.page.getByText('No apps are here for you yet.').waitFor();
  await v.page.goto(`${ws.pages}/apps/00000000-0000-4000-8000-000000000000`);
  await arrived(v, 'apps-missing-320', 'App not found');
});

/** Every request of the tab went to these origins (the portal's, the framed app's). */
function assertOnlyTo(v: Visit, origins: string[]) {
  assert.deepEqual(
    v.requests.filter((url) => !origins.some((origin) => url.startsWith(`${origin}/`))),
    [],
    'no request left the portal but for the app it frames',
  );
}
