// The admin surface (contract §7): its token guard, and session minting's input checks.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { adminRequest, mintSession, populatedWorkspace } from './helpers/factories.js';
import { BACKENDS, NOON, TEST_ADMIN_TOKEN, adminHarness, harness } from './helpers/harness.js';

for (const backend of BACKENDS) {
  describe(`admin surface [${backend}]`, () => {
    test('the admin surface: token guard, input checks, configurable lifetime', async (t) => {
      const h = await adminHarness(t, backend, { env: { SESSION_LIFETIME_SECONDS: '600' } });
      const { ws, app, user, client } = await populatedWorkspace(h);
      const other = await populatedWorkspace(h, 'Other');
      const url = `/admin/workspaces/${ws.workspaceId}/sessions`;
      const wrongToken = {
        code: 'unauthorized',
        message: 'Missing or wrong admin token: send Authorization: Bearer <PORTAL_ADMIN_TOKEN>, or sign in to the console.',
        data: null,
      };
      const noToken = await h.app.inject({ method: 'POST', url, payload: { apiKey: app.apiKey, internalUserId: user.id } });
      assert.equal(noToken.statusCode, 401);
      assert.deepEqual(noToken.json(), wrongToken);
      for (const token of [`${TEST_ADMIN_TOKEN}x`, TEST_ADMIN_TOKEN.slice(1), 'short']) {
        const res = await adminRequest(h, 'POST', url, { apiKey: app.apiKey, internalUserId: user.id }, token);
        assert.equal(res.statusCode, 401);
        assert.deepEqual(res.json(), wrongToken);
      }
      assert.equal(
        (await h.as(ws.apiKey, { method: 'POST', url, payload: { apiKey: app.apiKey, internalUserId: user.id } })).statusCode,
        401,
        'an API key is no admin token',
      );

      assert.equal(
        (await mintSession(h, ws.workspaceId, { apiKey: app.apiKey, internalUserId: user.id })).expiresAt,
        NOON / 1000 + 600,
        'SESSION_LIFETIME_SECONDS',
      );

      const refused = async (body: object, status: number, expected: object, path = url) => {
        const res = await adminRequest(h, 'POST', path, body);
        assert.equal(res.statusCode, status, JSON.stringify(body));
        assert.deepEqual(res.json(), expected, JSON.stringify(body));
      };
      await refused({ apiKey: app.apiKey }, 400, {
        code: 'bad_request',
        message: 'clientId: give exactly one of clientId and internalUserId',
        data: [{ path: 'clientId', message: 'give exactly one of clientId and internalUserId' }],
      });
      await refused({ apiKey: app.apiKey, clientId: client.id, internalUserId: user.id }, 400, {
        code: 'bad_request',
        message: 'clientId: give exactly one of clientId and internalUserId',
        data: [{ path: 'clientId', message: 'give exactly one of clientId and internalUserId' }],
      });
      await refused({ apiKey: app.apiKey, internalUserId: user.id, companyId: other.company.id }, 400, {
        code: 'bad_request',
        message: 'companyId: is only for a client session',
        data: [{ path: 'companyId', message: 'is only for a client session' }],
      });
      await refused({ apiKey: ws.apiKey, internalUserId: user.id }, 400, {
        code: 'bad_request',
        message: 'apiKey: must be an app key (sessions are an installed app acting for an end user)',
        data: [{ path: 'apiKey', message: 'must be an app key (sessions are an installed app acting for an end user)' }],
      });
      await refused({ apiKey: other.app.apiKey, internalUserId: user.id }, 400, {
        code: 'bad_request',
        message: 'apiKey: is not an active API key of this workspace',
        data: [{ path: 'apiKey', message: 'is not an active API key of this workspace' }],
      });
      await refused({ apiKey: app.apiKey, clientId: client.id, companyId: other.company.id }, 400, {
        code: 'bad_request',
        message: 'companyId: is not a company of this client',
        data: [{ path: 'companyId', message: 'is not a company of this client' }],
      });
      await refused({ apiKey: app.apiKey, clientId: other.client.id }, 404, {
        code: 'not_found',
        message: 'Client not found.',
        data: null,
      });
      await refused({ apiKey: app.apiKey, internalUserId: other.user.id }, 404, {
        code: 'not_found',
        message: 'Internal user not found.',
        data: null,
      });
      await refused(
        { apiKey: app.apiKey, internalUserId: user.id },
        404,
        { code: 'not_found', message: 'Workspace not found.', data: null },
        '/admin/workspaces/3f1c2b4a-5d6e-4f70-8a9b-0c1d2e3f4a5b/sessions',
      );
      await refused({ apiKey: app.apiKey, internalUserId: user.id, expires: 5 }, 400, {
        code: 'bad_request',
        message: 'body.expires is not a known field',
        data: [{ path: 'body.expires', message: 'is not a known field' }],
      });
    });

    test('without PORTAL_ADMIN_TOKEN the admin surface does not exist (404)', async (t) => {
      const h = await harness(t, backend);
      const ws = await h.workspace();
      const res = await adminRequest(h, 'POST', `/admin/workspaces/${ws.workspaceId}/sessions`, {});
      assert.equal(res.statusCode, 404);
      assert.deepEqual(res.json(), {
        code: 'not_found',
        message: `No route POST /admin/workspaces/${ws.workspaceId}/sessions.`,
        data: null,
      });
    });
  });
}
