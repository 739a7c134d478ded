import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { APP_ID, createClient, createCompany, createTestInternalUser, withBearer } from './helpers/factories.js';
import { BACKENDS, type Backend, TestClock, adminHarness } from './helpers/harness.js';
import { sessionMaker } from './helpers/world.js';

/** Contract §2 permissions: what each principal kind can list, get, change and delete. */
async function world(t: Parameters<typeof adminHarness>[0], backend: Backend) {
  const h = await adminHarness(t, backend, { clock: new TestClock() });
  const ws = await h.workspace();
  const app = await h.appKey(ws.workspaceId, APP_ID);
  const as = (key: string) => (method: string, url: string, payload?: unknown) =>
    h.as(key, { method: method as 'GET', url, ...(payload !== undefined ? { payload: payload as object } : {}) });
  const byKey = as(ws.apiKey);
  const companyA = await createCompany(h, ws.apiKey, { name: 'A' });
  const companyB = await createCompany(h, ws.apiKey, { name: 'B' });
  const a1 = await createClient(h, ws.apiKey, { email: 'a1@x.test', givenName: 'A', familyName: 'One', companyId: companyA.id });
  const b1 = await createClient(h, ws.apiKey, { email: 'b1@x.test', givenName: 'B', familyName: 'One', companyId: companyB.id });
  const admin = await createTestInternalUser(h, ws.workspaceId, {
    email: 'admin@x.test',
    givenName: 'Ad',
    familyName: 'Min',
    role: 'admin',
  });
  const staffA = await createTestInternalUser(h, ws.workspaceId, {
    email: 'staff@x.test',
    givenName: 'St',
    familyName: 'Aff',
    role: 'staff',
    companyAccessList: [companyA.id],
  });
  const sessionKey = sessionMaker(h, ws.workspaceId, app.apiKey);
  const session = async (body: { clientId?: string; internalUserId?: string }) => as(await sessionKey(body));
  return {
    h,
    ws,
    app,
    companyA,
    companyB,
    a1,
    b1,
    byKey,
    byApp: as(app.apiKey),
    admin: await session({ internalUserId: admin.id }),
    staffA: await session({ internalUserId: staffA.id }),
    clientA1: await session({ clientId: a1.id }),
  };
}

const ids = (res: { json(): { data: { id: string }[] } }) =>
  res
    .json()
    .data.map((item) => item.id)
    .sort();
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
      const byBearer: Caller = (method, url, payload) => withBearer(w.h, bearer, method as 'GET', url, payload as object | undefined);
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
      await expectStatus(w.staffA, 'POST', '/v1/clients', 400, {
        email: 'n@x.test',
        givenName: 'N',
        familyName: 'N',
        companyId: w.companyB.id,
      });
      const noCompany = await expectStatus(w.staffA, 'POST', '/v1/clients', 400, { email: 'n@x.test', givenName: 'N', familyName: 'N' });
      assert.deepEqual(noCompany.json().data, [
        { path: 'body.companyId', message: 'is required: you may only add clients to your companies' },
      ]);
      await expectStatus(w.staffA, 'POST', '/v1/clients', 200, {
        email: 'n@x.test',
        givenName: 'N',
        familyName: 'N',
        companyId: w.companyA.id,
      });
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
