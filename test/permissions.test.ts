import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { systemCaller } from '../src/lib/caller.js';
import { createInternalUser } from '../src/modules/internal-users/internal-users.service.js';
import { BACKENDS, type Backend, type Harness, TestClock, harness } from './helpers/harness.js';

/** Contract §2 permissions: what each principal kind can list, get, change and delete. */
const ADMIN_TOKEN = 'admin-token-for-tests-0123456789';
const APP_ID = '7b0e4a7e-8c1f-4d55-9f3a-2d5c3a1e9b11';

async function world(t: Parameters<typeof harness>[0], backend: Backend) {
  const h = await harness(t, backend, { clock: new TestClock(), env: { PORTAL_ADMIN_TOKEN: ADMIN_TOKEN } });
  const ws = await h.workspace();
  const app = await h.appKey(ws.workspaceId, APP_ID);
  const as = (key: string) => (method: string, url: string, payload?: unknown) =>
    h.as(key, { method: method as 'GET', url, ...(payload !== undefined ? { payload: payload as object } : {}) });
  const byKey = as(ws.apiKey);
  const companyA = (await byKey('POST', '/v1/companies', { name: 'A' })).json();
  const companyB = (await byKey('POST', '/v1/companies', { name: 'B' })).json();
  const a1 = (await byKey('POST', '/v1/clients', { email: 'a1@x.test', givenName: 'A', familyName: 'One', companyId: companyA.id })).json();
  const b1 = (await byKey('POST', '/v1/clients', { email: 'b1@x.test', givenName: 'B', familyName: 'One', companyId: companyB.id })).json();
  const actor = systemCaller(ws.workspaceId, h.clock.now());
  const admin = await createInternalUser(h.app.ctx.database, actor, { email: 'admin@x.test', givenName: 'Ad', familyName: 'Min', role: 'admin' });
  const staffA = await createInternalUser(h.app.ctx.database, actor, { email: 'staff@x.test', givenName: 'St', familyName: 'Aff', role: 'staff', companyAccessList: [companyA.id] });
  const session = async (body: Record<string, string>) => {
    const res = await h.app.inject({ method: 'POST', url: `/admin/workspaces/${ws.workspaceId}/sessions`, headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, payload: { apiKey: app.apiKey, ...body } });
    assert.equal(res.statusCode, 200, res.body);
    return as(`${ws.workspaceId}/${app.apiKey}/${res.json().tokenId}`);
  };
  return { h, ws, app, companyA, companyB, a1, b1, byKey, byApp: as(app.apiKey), admin: await session({ internalUserId: admin.id }), staffA: await session({ internalUserId: staffA.id }), clientA1: await session({ clientId: a1.id }) };
}

const ids = (res: { json(): { data: { id: string }[] } }) => res.json().data.map((item) => item.id).sort();
type Caller = (method: string, url: string, payload?: unknown) => Promise<{ statusCode: number; json(): any }>;

async function expectStatus(caller: Caller, method: string, url: string, status: number, payload?: unknown) {
  const res = await caller(method, url, payload);
  assert.equal(res.statusCode, status, `${method} ${url}: ${JSON.stringify(res.json())}`);
  return res;
}

for (const backend of BACKENDS) {
  describe(`permissions per principal (contract §2) [${backend}]`, () => {
    test('workspace key, app key and bearer token: the whole workspace', async (t) => {
      const w = await world(t, backend);
      const bearer = (await w.byApp('POST', '/v1/token')).json().token as string;
      const byBearer: Caller = (method, url, payload) => w.h.app.inject({ method: method as 'GET', url, headers: { authorization: `Bearer ${bearer}` }, ...(payload ? { payload: payload as object } : {}) });
      for (const caller of [w.byKey, w.byApp, byBearer]) {
        assert.deepEqual(ids(await expectStatus(caller, 'GET', '/v1/clients', 200)), [w.a1.id, w.b1.id].sort());
        await expectStatus(caller, 'GET', `/v1/companies/${w.companyB.id}`, 200);
        await expectStatus(caller, 'GET', '/v1/internal-users', 200);
      }
      await expectStatus(byBearer, 'DELETE', `/v1/clients/${w.b1.id}`, 200);
      await expectStatus(w.byApp, 'DELETE', `/v1/companies/${w.companyB.id}`, 200);
    });

    test('admin internal-user session: every company and client, and may delete', async (t) => {
      const w = await world(t, backend);
      assert.deepEqual(ids(await expectStatus(w.admin, 'GET', '/v1/clients', 200)), [w.a1.id, w.b1.id].sort());
      await expectStatus(w.admin, 'PATCH', `/v1/clients/${w.b1.id}`, 200, { givenName: 'Bee' });
      await expectStatus(w.admin, 'DELETE', `/v1/clients/${w.b1.id}`, 200);
      await expectStatus(w.admin, 'DELETE', `/v1/companies/${w.companyB.id}`, 200);
    });

    test('staff limited to company A: only A and its clients (others 404), and may not delete (403)', async (t) => {
      const w = await world(t, backend);
      assert.deepEqual(ids(await expectStatus(w.staffA, 'GET', '/v1/clients', 200)), [w.a1.id]);
      assert.deepEqual(ids(await expectStatus(w.staffA, 'GET', '/v1/companies', 200)), [w.companyA.id]);
      await expectStatus(w.staffA, 'GET', `/v1/clients/${w.a1.id}`, 200);
      const hidden = await expectStatus(w.staffA, 'GET', `/v1/clients/${w.b1.id}`, 404);
      assert.deepEqual(hidden.json(), { code: 'not_found', message: 'Client not found.', data: null });
      await expectStatus(w.staffA, 'GET', `/v1/companies/${w.companyB.id}`, 404);
      await expectStatus(w.staffA, 'PATCH', `/v1/clients/${w.b1.id}`, 404, { givenName: 'X' });
      await expectStatus(w.staffA, 'PATCH', `/v1/companies/${w.companyB.id}`, 404, { name: 'X' });
      await expectStatus(w.staffA, 'PATCH', `/v1/clients/${w.a1.id}`, 200, { givenName: 'Ay' });
      await expectStatus(w.staffA, 'POST', '/v1/clients', 400, { email: 'n@x.test', givenName: 'N', familyName: 'N', companyId: w.companyB.id });
      const noCompany = await expectStatus(w.staffA, 'POST', '/v1/clients', 400, { email: 'n@x.test', givenName: 'N', familyName: 'N' });
      assert.deepEqual(noCompany.json().data, [{ path: 'body.companyId', message: 'is required: you may only add clients to your companies' }]);
      await expectStatus(w.staffA, 'POST', '/v1/clients', 200, { email: 'n@x.test', givenName: 'N', familyName: 'N', companyId: w.companyA.id });
      await expectStatus(w.staffA, 'PUT', `/v1/clients/${w.a1.id}`, 400, { givenName: 'A', familyName: 'One' });
      await expectStatus(w.staffA, 'PUT', `/v1/clients/${w.a1.id}`, 200, { givenName: 'A', familyName: 'One', companyId: w.companyA.id });
      const denied = await expectStatus(w.staffA, 'DELETE', `/v1/clients/${w.a1.id}`, 403);
      assert.deepEqual(denied.json(), { code: 'forbidden', message: 'Staff may not do this; an admin may.', data: null });
      await expectStatus(w.staffA, 'DELETE', `/v1/companies/${w.companyA.id}`, 403);
      await expectStatus(w.byKey, 'GET', `/v1/clients/${w.a1.id}`, 200, undefined);
    });

    test('client session: itself and its companies; everything else 404; writes 403', async (t) => {
      const w = await world(t, backend);
      assert.deepEqual(ids(await expectStatus(w.clientA1, 'GET', '/v1/clients', 200)), [w.a1.id]);
      assert.deepEqual(ids(await expectStatus(w.clientA1, 'GET', '/v1/companies', 200)), [w.companyA.id]);
      await expectStatus(w.clientA1, 'GET', `/v1/clients/${w.a1.id}`, 200);
      await expectStatus(w.clientA1, 'GET', `/v1/clients/${w.b1.id}`, 404);
      await expectStatus(w.clientA1, 'GET', `/v1/companies/${w.companyB.id}`, 404);
      for (const url of ['/v1/internal-users', '/v1/custom-fields', '/v1/workspaces']) {
        const res = await expectStatus(w.clientA1, 'GET', url, 404);
        assert.deepEqual(res.json(), { code: 'not_found', message: 'Resource not found.', data: null });
      }
      const me = (await expectStatus(w.clientA1, 'GET', '/v1/me', 200)).json();
      assert.deepEqual([me.type, me.id], ['client', w.a1.id]);
      for (const [method, url, payload] of [
        ['PATCH', `/v1/clients/${w.a1.id}`, { givenName: 'Me' }],
        ['PUT', `/v1/clients/${w.a1.id}`, { givenName: 'Me', familyName: 'Too' }],
        ['DELETE', `/v1/clients/${w.a1.id}`, undefined],
        ['POST', '/v1/clients', { email: 'c@x.test', givenName: 'C', familyName: 'C' }],
        ['POST', '/v1/companies', { name: 'Mine' }],
        ['PATCH', `/v1/companies/${w.companyA.id}`, { name: 'Mine' }],
        ['DELETE', `/v1/companies/${w.companyA.id}`, undefined],
      ] as const) {
        const res = await expectStatus(w.clientA1, method, url, 403, payload);
        assert.deepEqual(res.json(), { code: 'forbidden', message: 'A client session may not change this.', data: null });
      }
      assert.equal((await w.byKey('GET', `/v1/clients/${w.a1.id}`)).json().givenName, 'A', 'nothing changed');
    });
  });
}
