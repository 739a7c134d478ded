// Rule (issue 33, point 8): app API resources. An app (its app API key, or a bearer token minted from it) declares the
// resources its own API exposes — PUT /v1/app-api-resources/{name} registers (201, appApiResourceRegistered) or replaces
// (200, appApiResourceUpdated; no event when nothing changed), GET lists and reads, DELETE removes
// (appApiResourceDeleted) — and rotates the secret its builder signs with (POST /v1/app-builder-secret, answered once,
// stored sealed: appBuilderSecretUpdated). Everything is the calling app's in its workspace: another app's or another
// workspace's resources are 404; a workspace key lists every app's but has no names of its own (404); client sessions 404.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { auditEntries, mintBearerToken } from '../../../../test/helpers/factories.js';
import { BACKENDS } from '../../../../test/helpers/harness.js';
import { assertProblems } from '../../../../test/helpers/problems.js';
import { NOON } from '../../../../test/helpers/types.js';
import { type Method, acmeAndBeta, keyCaller, moduleHarness } from '../../../../test/helpers/world.js';

const AT = new Date(NOON).toISOString();
const LATER = new Date(NOON + 1000).toISOString();
const OTHER_APP = '7b0e4a7e-8c1f-4d55-9f3a-2d5c3a1e9b12';

for (const backend of BACKENDS) {
  describe(`app API resources [${backend}]`, () => {
    async function world(t: Parameters<typeof moduleHarness>[0]) {
      const h = await moduleHarness(t, backend);
      const w = await acmeAndBeta(h);
      const otherApp = await h.appKey(w.ws.workspaceId, OTHER_APP);
      const otherWs = await h.workspace('Other');
      const otherWsApp = await h.appKey(otherWs.workspaceId, (await appIdOf(h, w.app.apiKeyId)) as string);
      const asApp = keyCaller(h, w.app.apiKey);
      return { ...w, otherApp, otherWsApp, asApp, appId: (await appIdOf(h, w.app.apiKeyId)) as string };
    }

    test('register (201), read, list, replace (200), unchanged (200, no event), delete; with their events', async (t) => {
      const { h, ws, asApp, appId } = await world(t);
      const put = await asApp('PUT', '/v1/app-api-resources/orders', {
        description: 'Orders',
        methods: ['POST', 'GET'],
        path: '/orders/{orderId}',
      });
      assert.equal(put.statusCode, 201, put.body);
      const id = put.json().id;
      const registered = {
        id,
        object: 'appApiResource',
        name: 'orders',
        appId,
        description: 'Orders',
        methods: ['GET', 'POST'],
        path: '/orders/{orderId}',
        createdAt: AT,
        updatedAt: AT,
      };
      assert.deepEqual(put.json(), registered);
      assert.deepEqual((await asApp('GET', '/v1/app-api-resources/orders')).json(), registered);
      assert.deepEqual((await asApp('GET', '/v1/app-api-resources')).json(), { data: [registered] });
      h.clock.advance(1000);
      const replaced = await asApp('PUT', '/v1/app-api-resources/orders', { methods: ['DELETE'] });
      assert.equal(replaced.statusCode, 200, replaced.body);
      const updated = { id, object: 'appApiResource', name: 'orders', appId, methods: ['DELETE'], createdAt: AT, updatedAt: LATER };
      assert.deepEqual(replaced.json(), updated, 'fields left out are cleared');
      h.clock.advance(1000);
      const same = await asApp('PUT', '/v1/app-api-resources/orders', { methods: ['DELETE'] });
      assert.equal(same.statusCode, 200);
      assert.deepEqual(same.json(), updated, 'nothing changed: not even updatedAt');
      const defaulted = await asApp('PUT', '/v1/app-api-resources/invoices', { methods: ['GET'] });
      assert.equal(defaulted.statusCode, 201);
      assert.deepEqual(defaulted.json().methods, ['GET']);
      const deleted = await asApp('DELETE', '/v1/app-api-resources/orders');
      assert.equal(deleted.statusCode, 200);
      assert.deepEqual(deleted.json(), { id, object: 'appApiResource', deleted: true });
      assert.equal((await asApp('GET', '/v1/app-api-resources/orders')).statusCode, 404);
      assert.equal((await asApp('DELETE', '/v1/app-api-resources/orders')).statusCode, 404);
      const events = (await auditEntries(h, ws.workspaceId)).filter((e) => e.event_type.startsWith('appApiResource'));
      assert.deepEqual(
        events.map((e) => [e.event_type, e.context, e.ref]),
        [
          ['appApiResourceRegistered', { appId, name: 'orders' }, id],
          ['appApiResourceUpdated', { appId, name: 'orders' }, id],
          ['appApiResourceDeleted', { appId, name: 'orders' }, id],
          ['appApiResourceRegistered', { appId, name: 'invoices' }, defaulted.json().id],
        ],
      );
    });

    test('bad input is a 400 naming the field, nothing written', async (t) => {
      const { asApp } = await world(t);
      const put = (name: string, body: object) => asApp('PUT', `/v1/app-api-resources/${name}`, body);
      assertProblems(await put('orders', {}), ['body.methods']);
      assertProblems(await put('Orders', { methods: ['GET'] }), [
        { path: 'params.name', message: 'must be a lower-case letter, then up to 63 lower-case letters, digits and dashes' },
      ]);
      assert.equal((await asApp('GET', '/v1/app-api-resources/Orders')).statusCode, 404, 'a read of a malformed name finds nothing');
      assertProblems(await put('orders', { methods: [] }), ['body.methods']);
      assertProblems(await put('orders', { methods: ['GET', 'GET'] }), ['body.methods']);
      assertProblems(await put('orders', { methods: ['TRACE'] }), ['body.methods.0']);
      assertProblems(await put('orders', { methods: ['GET'], path: 'orders' }), ['body.path']);
      assertProblems(await put('orders', { methods: ['GET'], description: 'a\u0000b' }), ['body.description']);
      assertProblems(await put('orders', { methods: ['GET'], name: 'x' }), ['body.name']);
      assert.deepEqual((await asApp('GET', '/v1/app-api-resources')).json(), { data: [] });
    });

    test("another app's and another workspace's resources are 404; who may call", async (t) => {
      const { h, ws, app, asApp, otherApp, otherWsApp, session, ada, user } = await world(t);
      assert.equal((await asApp('PUT', '/v1/app-api-resources/orders', { methods: ['GET'] })).statusCode, 201);
      for (const key of [otherApp.apiKey, otherWsApp.apiKey]) {
        const as = (method: Method, url: string, body?: object) => h.as(key, { method, url, ...(body ? { payload: body } : {}) });
        assert.equal((await as('GET', '/v1/app-api-resources/orders')).statusCode, 404);
        assert.equal((await as('DELETE', '/v1/app-api-resources/orders')).statusCode, 404);
        assert.deepEqual((await as('GET', '/v1/app-api-resources')).json(), { data: [] });
        // The same name is the other app's own, a resource of its own.
        assert.equal((await as('PUT', '/v1/app-api-resources/orders', { methods: ['POST'] })).statusCode, 201);
      }
      assert.deepEqual((await asApp('GET', '/v1/app-api-resources/orders')).json().methods, ['GET'], 'untouched by the others');
      // A workspace key (and staff) list every app's resources of the workspace, but have no names of their own.
      const everyApp = await h.as(ws.apiKey, { method: 'GET', url: '/v1/app-api-resources' });
      assert.equal(everyApp.statusCode, 200);
      assert.deepEqual(
        everyApp
          .json()
          .data.map((r: { appId: string }) => r.appId)
          .sort(),
        [await appIdOf(h, app.apiKeyId), OTHER_APP].sort(),
      );
      const oneApp = await h.as(ws.apiKey, { method: 'GET', url: `/v1/app-api-resources?appId=${OTHER_APP}` });
      assert.deepEqual(
        oneApp.json().data.map((r: { methods: string[] }) => r.methods),
        [['POST']],
      );
      const own = await asApp('GET', `/v1/app-api-resources?appId=${OTHER_APP}`);
      assert.deepEqual(own.json(), { data: [] }, "an app never lists another app's");
      for (const method of ['GET', 'PUT', 'DELETE'] as const) {
        const res = await h.as(ws.apiKey, {
          method,
          url: '/v1/app-api-resources/orders',
          ...(method === 'PUT' ? { payload: { methods: ['GET'] } } : {}),
        });
        assert.equal(res.statusCode, 404, `${method} by a workspace key`);
        assert.deepEqual(res.json(), { code: 'not_found', message: 'App API resource not found.', data: null });
      }
      const staff = await session({ internalUserId: user.id });
      assert.equal((await h.as(staff, { method: 'GET', url: '/v1/app-api-resources' })).statusCode, 200);
      assert.equal((await h.as(staff, { method: 'GET', url: '/v1/app-api-resources/orders' })).statusCode, 404);
      const client = await session({ clientId: ada.id });
      assert.equal((await h.as(client, { method: 'GET', url: '/v1/app-api-resources' })).statusCode, 404);
      const token = (await mintBearerToken(h, app.apiKey)).json().token;
      const viaBearer = await h.app.inject({
        method: 'GET',
        url: '/v1/app-api-resources/orders',
        headers: { authorization: `Bearer ${token}` },
      });
      assert.equal(viaBearer.statusCode, 200, 'a bearer token of the app key is the app');
    });

    test('builder secret: answered once, stored sealed, rotated; appBuilderSecretUpdated without the secret', async (t) => {
      const { h, ws, asApp, appId, otherApp } = await world(t);
      const first = await asApp('POST', '/v1/app-builder-secret');
      assert.equal(first.statusCode, 200, first.body);
      const { secret } = first.json();
      assert.match(secret, /^pbs_[A-Za-z0-9_-]{43}$/);
      assert.deepEqual(first.json(), { object: 'appBuilderSecret', appId, secret, updatedAt: AT });
      const rows = await h.app.ctx.db.selectFrom('app_builder_secrets').selectAll().where('workspace_id', '=', ws.workspaceId).execute();
      assert.equal(rows.length, 1);
      assert.ok(rows[0].sealed_secret.startsWith('v1:') && !rows[0].sealed_secret.includes(secret.slice(4)), 'sealed, not in clear');
      h.clock.advance(1000);
      const second = await asApp('POST', '/v1/app-builder-secret');
      assert.notEqual(second.json().secret, secret);
      assert.equal(second.json().updatedAt, LATER);
      h.clock.advance(1000);
      assert.equal((await h.as(otherApp.apiKey, { method: 'POST', url: '/v1/app-builder-secret' })).statusCode, 200);
      const after = await h.app.ctx.db
        .selectFrom('app_builder_secrets')
        .select(['app_id', 'updated_at'])
        .where('workspace_id', '=', ws.workspaceId)
        .orderBy('app_id')
        .execute();
      assert.deepEqual(after.map((r) => r.app_id).sort(), [appId, OTHER_APP].sort(), 'one secret per app, replaced in place');
      const refused = await h.as(ws.apiKey, { method: 'POST', url: '/v1/app-builder-secret' });
      assert.equal(refused.statusCode, 403);
      assert.deepEqual(refused.json(), {
        code: 'forbidden',
        message: 'Only an app (its app API key made with an appId, or a bearer token minted from it) has a builder secret.',
        data: null,
      });
      const entries = (await auditEntries(h, ws.workspaceId)).filter((e) => e.event_type === 'appBuilderSecretUpdated');
      assert.deepEqual(
        entries.map((e) => e.context),
        [{ appId }, { appId }, { appId: OTHER_APP }],
      );
      assert.ok(!JSON.stringify(entries).includes(secret.slice(4)), 'the secret is never recorded');
    });
  });
}

async function appIdOf(h: Awaited<ReturnType<typeof moduleHarness>>, apiKeyId: string) {
  const row = await h.app.ctx.db.selectFrom('api_keys').select('app_id').where('id', '=', apiKeyId).executeTakeFirstOrThrow();
  return row.app_id;
}
