// The operator's admin surface beyond sessions (contract §7, issue 14): the console's sign-in cookie
// and its CSRF header, workspaces with today's quota use, API keys with labels, internal users, and
// the operator's workspace token — each on both backends, each workspace seeing only its own.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { adminRequest } from './helpers/factories.js';
import { BACKENDS, NOON, TEST_ADMIN_TOKEN, adminHarness } from './helpers/harness.js';
import type { Harness } from './helpers/types.js';

const HOUR = 3600_000;
const signIn = (h: Harness, token = TEST_ADMIN_TOKEN) => h.app.inject({ method: 'POST', url: '/admin/session', payload: { token } });
const cookieOf = (setCookie: unknown) => String(setCookie).split(';')[0];

for (const backend of BACKENDS) {
  describe(`operator surface [${backend}]`, () => {
    test('console sign-in: an HttpOnly SameSite=Strict cookie that needs X-Portal-Console, expires in 8 hours, and signs out', async (t) => {
      const h = await adminHarness(t, backend);
      const wrong = await signIn(h, `${TEST_ADMIN_TOKEN}x`);
      assert.equal(wrong.statusCode, 401);
      assert.deepEqual(wrong.json(), { code: 'unauthorized', message: 'Wrong admin token.', data: null });
      assert.equal(wrong.headers['set-cookie'], undefined);

      const ok = await signIn(h);
      assert.equal(ok.statusCode, 204);
      assert.equal(ok.body, '');
      const setCookie = String(ok.headers['set-cookie']);
      assert.match(
        setCookie,
        /^portal_admin=\d+\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}; Path=\/; Max-Age=28800; HttpOnly; SameSite=Strict$/,
      );
      const cookie = cookieOf(setCookie);

      const session = (headers: Record<string, string>) => h.app.inject({ method: 'GET', url: '/admin/session', headers });
      const fine = await session({ cookie, 'x-portal-console': '1' });
      assert.equal(fine.statusCode, 200);
      assert.deepEqual(fine.json(), { expiresAt: new Date(NOON + 8 * HOUR).toISOString() });
      // The cookie alone (what a forged cross-site form or image would send) is refused.
      const forged = await session({ cookie });
      assert.equal(forged.statusCode, 403);
      assert.deepEqual(forged.json(), {
        code: 'forbidden',
        message: 'A request authenticated by the console session cookie must carry X-Portal-Console: 1.',
        data: null,
      });
      const forgedWrite = await h.app.inject({
        method: 'POST',
        url: '/admin/workspaces',
        headers: { cookie },
        payload: { name: 'Forged' },
      });
      assert.equal(forgedWrite.statusCode, 403);
      // A tampered signature, or another token's cookie, is no session.
      const tampered = `${cookie.slice(0, -2)}${cookie.endsWith('AA') ? 'AB' : 'AA'}`;
      assert.equal((await session({ cookie: tampered, 'x-portal-console': '1' })).statusCode, 401);
      const longer = `portal_admin=${Number(cookie.split('=')[1].split('.')[0]) + HOUR}.${cookie.split('.').slice(1).join('.')}`;
      assert.equal((await session({ cookie: longer, 'x-portal-console': '1' })).statusCode, 401, 'the expiry is signed');
      // The admin token itself still works, and has no session expiry.
      assert.deepEqual((await adminRequest(h, 'GET', '/admin/session')).json(), { expiresAt: null });

      h.clock.advance(8 * HOUR);
      assert.equal((await session({ cookie, 'x-portal-console': '1' })).statusCode, 401, 'expired after 8 hours');

      const out = await h.app.inject({ method: 'DELETE', url: '/admin/session', headers: { cookie } });
      assert.equal(out.statusCode, 204);
      assert.equal(out.headers['set-cookie'], 'portal_admin=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict');
    });

    test('the cookie is Secure when PORTAL_URL is https', async (t) => {
      const h = await adminHarness(t, backend, { env: { PORTAL_URL: 'https://portal.example.com' } });
      assert.match(String((await signIn(h)).headers['set-cookie']), /; HttpOnly; SameSite=Strict; Secure$/);
    });

    test('workspaces: create, list with today’s quota use, rename and change the quota', async (t) => {
      const h = await adminHarness(t, backend);
      const created = await adminRequest(h, 'POST', '/admin/workspaces', { name: '  Umbrella ', dailyQuota: 50 });
      assert.equal(created.statusCode, 201);
      const { workspaceId, apiKeyId, apiKey } = created.json();
      assert.deepEqual(Object.keys(created.json()).sort(), ['apiKey', 'apiKeyId', 'workspaceId']);
      assert.match(apiKey, /^ppk_/);
      for (let i = 0; i < 3; i++) assert.equal((await h.as(apiKey, { method: 'GET', url: '/v1/me' })).statusCode, 200);
      const other = await h.workspace('Other');

      const list = await adminRequest(h, 'GET', '/admin/workspaces');
      assert.equal(list.statusCode, 200);
      const at = new Date(NOON).toISOString();
      const umbrella = {
        id: workspaceId,
        object: 'workspace',
        name: 'Umbrella',
        dailyQuota: 50,
        staffMfaRequired: false,
        sandbox: false,
        createdAt: at,
        updatedAt: at,
        usedToday: 3,
      };
      assert.deepEqual(
        list.json().data.find((w: { id: string }) => w.id === workspaceId),
        umbrella,
      );
      assert.deepEqual(
        list
          .json()
          .data.map((w: { id: string }) => w.id)
          .sort(),
        [workspaceId, other.workspaceId].sort(),
      );
      // Paged like every list: one per page, then the rest.
      const first = await adminRequest(h, 'GET', '/admin/workspaces?limit=1');
      assert.equal(first.json().data.length, 1);
      const second = await adminRequest(h, 'GET', `/admin/workspaces?limit=1&nextToken=${first.json().nextToken}`);
      assert.deepEqual(second.json().nextToken, undefined);
      assert.notEqual(second.json().data[0].id, first.json().data[0].id);

      h.clock.advance(1000);
      const renamed = await adminRequest(h, 'PATCH', `/admin/workspaces/${workspaceId}`, { name: 'Umbrella Corp', dailyQuota: 3 });
      assert.equal(renamed.statusCode, 200);
      assert.deepEqual(renamed.json(), {
        ...umbrella,
        name: 'Umbrella Corp',
        dailyQuota: 3,
        updatedAt: new Date(NOON + 1000).toISOString(),
      });
      const over = await h.as(apiKey, { method: 'GET', url: '/v1/me' });
      assert.equal(over.statusCode, 429, 'the new quota (3, all used) applies at once');

      const empty = await adminRequest(h, 'PATCH', `/admin/workspaces/${workspaceId}`, {});
      assert.equal(empty.statusCode, 400);
      assert.equal(empty.json().code, 'bad_request');
      for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
        const missing = await adminRequest(h, 'PATCH', `/admin/workspaces/${id}`, { name: 'X' });
        assert.equal(missing.statusCode, 404);
        assert.deepEqual(missing.json(), { code: 'not_found', message: 'Workspace not found.', data: null });
      }
      assert.equal(apiKeyId.length, 36);
    });

    test('API keys: create with a label (shown once), list without secrets, revoke; another workspace’s key is a 404', async (t) => {
      const h = await adminHarness(t, backend);
      const ws = await h.workspace();
      const other = await h.workspace('Other');
      const base = `/admin/workspaces/${ws.workspaceId}/keys`;
      const created = await adminRequest(h, 'POST', base, { label: 'billing job' });
      assert.equal(created.statusCode, 201);
      const { apiKeyId, apiKey } = created.json();
      assert.deepEqual(Object.keys(created.json()).sort(), ['apiKey', 'apiKeyId']);
      const appId = '11111111-2222-4333-8444-555555555555';
      const appKey = (await adminRequest(h, 'POST', base, { appId })).json();
      assert.equal(appKey.appId, appId);

      const list = await adminRequest(h, 'GET', base);
      assert.equal(list.statusCode, 200);
      const at = new Date(NOON).toISOString();
      assert.deepEqual(
        list.json().data.filter((k: { id: string }) => k.id !== ws.apiKeyId),
        [
          {
            id: apiKeyId,
            prefix: apiKey.slice(0, 10),
            kind: 'workspace',
            appId: null,
            label: 'billing job',
            createdAt: at,
            revokedAt: null,
          },
          { id: appKey.apiKeyId, prefix: appKey.apiKey.slice(0, 10), kind: 'app', appId, label: null, createdAt: at, revokedAt: null },
        ].sort((a, b) => (a.id < b.id ? -1 : 1)),
      );
      // A prefix (`ppk_` and six characters of the lookup) tells keys apart; never the rest of a key, nor a secret.
      assert.doesNotMatch(list.body, /secret/);
      for (const key of [apiKey, appKey.apiKey]) assert.ok(!list.body.includes(key.slice(10)), 'never the rest of the key');

      assert.equal((await adminRequest(h, 'DELETE', `/admin/workspaces/${other.workspaceId}/keys/${apiKeyId}`)).statusCode, 404);
      assert.deepEqual(
        (await adminRequest(h, 'GET', `/admin/workspaces/${other.workspaceId}/keys`)).json().data.map((k: { id: string }) => k.id),
        [other.apiKeyId],
      );
      assert.equal((await h.as(apiKey, { method: 'GET', url: '/v1/me' })).statusCode, 200);
      const revoked = await adminRequest(h, 'DELETE', `${base}/${apiKeyId}`);
      assert.equal(revoked.statusCode, 200);
      assert.deepEqual(revoked.json(), { apiKeyId, revoked: true });
      assert.equal((await h.as(apiKey, { method: 'GET', url: '/v1/me' })).statusCode, 401);
      assert.equal((await adminRequest(h, 'DELETE', `${base}/${apiKeyId}`)).statusCode, 404, 'revoked once');
      const bad = await adminRequest(h, 'POST', base, { label: '' });
      assert.equal(bad.statusCode, 400);
      assert.equal(bad.json().data[0].path, 'body.label');
    });

    test('internal users are created on the admin surface as the API answers them', async (t) => {
      const h = await adminHarness(t, backend);
      const ws = await h.workspace();
      const url = `/admin/workspaces/${ws.workspaceId}/internal-users`;
      const created = await adminRequest(h, 'POST', url, {
        email: 'grace@example.com',
        givenName: 'Grace',
        familyName: 'Hopper',
        role: 'admin',
      });
      assert.equal(created.statusCode, 201);
      const read = await h.as(ws.apiKey, { method: 'GET', url: `/v1/internal-users/${created.json().id}` });
      assert.deepEqual(created.json(), read.json());
      assert.equal(read.json().role, 'admin');
      const unknownCompany = '00000000-0000-4000-8000-000000000001';
      const bad = await adminRequest(h, 'POST', url, {
        email: 'x@example.com',
        givenName: 'X',
        familyName: 'Y',
        companyAccessList: [unknownCompany],
      });
      assert.equal(bad.statusCode, 400);
      assert.deepEqual(bad.json().data, [{ path: 'companyAccessList', message: `${unknownCompany} is not a company of this workspace` }]);
    });

    test("the operator's token: one hour of workspace rights through one 'console' key, ended by revoking it", async (t) => {
      const h = await adminHarness(t, backend);
      const ws = await h.workspace();
      const other = await h.workspace('Other');
      const url = `/admin/workspaces/${ws.workspaceId}/tokens`;
      const minted = await adminRequest(h, 'POST', url);
      assert.equal(minted.statusCode, 201);
      const { token, tokenExpiresAt } = minted.json();
      assert.equal(tokenExpiresAt, NOON / 1000 + 3600);
      const bearer = (tok: string, url: string) => h.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${tok}` } });
      const me = await bearer(token, '/v1/me');
      assert.equal(me.statusCode, 200);
      assert.equal(me.json().type, 'workspace');
      assert.equal(me.json().workspaceId, ws.workspaceId);
      assert.equal((await bearer(token, '/v1/internal-users')).statusCode, 200);
      // Its rights are a workspace key's, in its own workspace only.
      const client = await h.as(other.apiKey, {
        method: 'POST',
        url: '/v1/clients',
        payload: { email: 'o@example.com', givenName: 'O', familyName: 'P' },
      });
      assert.equal((await bearer(token, `/v1/clients/${client.json().id}`)).statusCode, 404);
      const mint = await h.app.inject({ method: 'POST', url: '/v1/token', headers: { authorization: `Bearer ${token}` } });
      assert.equal(mint.statusCode, 403, 'a workspace token mints no tokens');

      const second = (await adminRequest(h, 'POST', url)).json().token;
      const keys = (await adminRequest(h, 'GET', `/admin/workspaces/${ws.workspaceId}/keys`)).json().data;
      const consoleKeys = keys.filter((k: { label: string | null }) => k.label === 'console');
      assert.equal(consoleKeys.length, 1, 'every token of the workspace comes from one console key');
      assert.equal(consoleKeys[0].kind, 'workspace');

      h.clock.advance(3600_000);
      assert.equal((await bearer(token, '/v1/me')).statusCode, 401, 'expired after one hour');
      const third = (await adminRequest(h, 'POST', url)).json().token;
      assert.equal((await bearer(third, '/v1/me')).statusCode, 200);
      await adminRequest(h, 'DELETE', `/admin/workspaces/${ws.workspaceId}/keys/${consoleKeys[0].id}`);
      assert.equal((await bearer(third, '/v1/me')).statusCode, 401, 'revoking the console key ends its tokens');
      assert.notEqual(second, third);
      assert.equal((await adminRequest(h, 'POST', '/admin/workspaces/00000000-0000-4000-8000-000000000000/tokens')).statusCode, 404);
    });
  });
}
