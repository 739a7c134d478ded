// GET /v1/me (contract §2): the caller, for every principal kind.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { APP_ID, mintBearerToken, mintSession, populatedWorkspace, sessionKey, withBearer } from '../../../../test/helpers/factories.js';
import { BACKENDS, adminHarness } from '../../../../test/helpers/harness.js';
import { CONTRACT_LIMITS, limitHeaders } from '../../../../test/helpers/limits.js';

for (const backend of BACKENDS) {
  describe(`GET /v1/me [${backend}]`, () => {
    test('GET /v1/me answers every principal kind, with the limit headers', async (t) => {
      const h = await adminHarness(t, backend, { env: CONTRACT_LIMITS });
      const { ws, app, user, company, client } = await populatedWorkspace(h);
      const { token } = (await mintBearerToken(h, app.apiKey)).json();
      const staff = await mintSession(h, ws.workspaceId, { apiKey: app.apiKey, internalUserId: user.id });
      const forClient = await mintSession(h, ws.workspaceId, { apiKey: app.apiKey, clientId: client.id });
      const base = { object: 'me', workspaceId: ws.workspaceId };
      const cases: [string, () => Promise<{ statusCode: number; json(): unknown; headers: Record<string, unknown> }>, object][] = [
        [
          'workspace key',
          () => h.as(ws.apiKey, { method: 'GET', url: '/v1/me' }),
          { ...base, type: 'workspace', id: ws.apiKeyId, apiKeyId: ws.apiKeyId },
        ],
        [
          'app key',
          () => h.as(app.apiKey, { method: 'GET', url: '/v1/me' }),
          { ...base, type: 'app', id: APP_ID, apiKeyId: app.apiKeyId, appId: APP_ID },
        ],
        [
          'bearer token',
          () => withBearer(h, token, 'GET', '/v1/me'),
          { ...base, type: 'app', id: APP_ID, apiKeyId: app.apiKeyId, appId: APP_ID },
        ],
        [
          'internal-user session',
          () => h.as(sessionKey(ws.workspaceId, app.apiKey, staff.tokenId), { method: 'GET', url: '/v1/me' }),
          { ...base, type: 'internalUser', id: user.id, apiKeyId: app.apiKeyId, appId: APP_ID, tokenId: staff.tokenId },
        ],
        [
          'client session',
          () => h.as(sessionKey(ws.workspaceId, app.apiKey, forClient.tokenId), { method: 'GET', url: '/v1/me' }),
          {
            ...base,
            type: 'client',
            id: client.id,
            apiKeyId: app.apiKeyId,
            appId: APP_ID,
            companyId: company.id,
            tokenId: forClient.tokenId,
          },
        ],
      ];
      for (const [name, call, expected] of cases) {
        const res = await call();
        assert.equal(res.statusCode, 200, name);
        assert.deepEqual(res.json(), expected, name);
        assert.deepEqual(
          Object.keys(limitHeaders(res)).sort(),
          ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-service-quota-limit', 'x-service-quota-remaining', 'x-service-quota-reset'],
          name,
        );
        assert.equal(res.headers['x-ratelimit-limit'], '20', name);
      }
    });
  });
}
