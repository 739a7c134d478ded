// Bearer tokens (contract §1, §2, §6): POST /v1/token, what a token may do, its refusals, its limits.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import {
  APP_ID,
  OTHER_APP_ID,
  mintBearerToken,
  mintSession,
  adminRequest,
  populatedWorkspace,
  revokeKey,
  sessionKey,
  withBearer,
} from '../../../../test/helpers/factories.js';
import { BACKENDS, NOON, TestClock, adminHarness, freshDatabaseUrl } from '../../../../test/helpers/harness.js';
import { heldWithin } from '../../../../test/helpers/eventually.js';
import { CONTRACT_LIMITS, remainingOf } from '../../../../test/helpers/limits.js';

const UNAUTHORIZED = { code: 'unauthorized', message: 'Missing, unknown, revoked or expired credentials.', data: null };

for (const backend of BACKENDS) {
  describe(`POST /v1/token and bearer tokens [${backend}]`, () => {
    test('an app key mints a one-hour token (Unix seconds) that works with the key’s rights; only its hash is stored', async (t) => {
      const h = await adminHarness(t, backend);
      const { ws, app } = await populatedWorkspace(h);
      const res = await mintBearerToken(h, app.apiKey);
      assert.equal(res.statusCode, 200);
      const body = res.json();
      assert.deepEqual(Object.keys(body).sort(), ['token', 'tokenExpiresAt']);
      assert.equal(body.tokenExpiresAt, NOON / 1000 + 3600);
      assert.match(body.token, /^ppt_[A-Za-z0-9_-]{43}$/);
      assert.equal((await mintBearerToken(h, `${ws.workspaceId}/${app.apiKey}`)).statusCode, 200, 'the workspaceId/key form mints too');

      const me = await withBearer(h, body.token, 'GET', '/v1/me');
      assert.equal(me.statusCode, 200);
      assert.deepEqual(me.json(), {
        object: 'me',
        workspaceId: ws.workspaceId,
        type: 'app',
        id: APP_ID,
        apiKeyId: app.apiKeyId,
        appId: APP_ID,
      });
      const created = await withBearer(h, body.token, 'POST', '/v1/companies', { name: 'By bearer' });
      assert.equal(created.statusCode, 200);
      assert.equal((await withBearer(h, body.token, 'GET', `/v1/companies/${created.json().id}`)).json().name, 'By bearer');

      const rows = await h.app.ctx.db.selectFrom('bearer_tokens').selectAll().where('api_key_id', '=', app.apiKeyId).execute();
      assert.equal(rows.length, 2);
      assert.ok(rows.some((r) => r.token_hash === createHash('sha256').update(body.token).digest('hex')));
      assert.ok(
        rows.every((r) => !JSON.stringify(r).includes(body.token.slice(4))),
        'the token itself is not stored',
      );
    });

    test('a token is refused (401) from tokenExpiresAt on; minting sweeps the key’s expired tokens', async (t) => {
      const h = await adminHarness(t, backend);
      const { app } = await populatedWorkspace(h);
      const { token } = (await mintBearerToken(h, app.apiKey)).json();
      h.clock.advance(3600_000 - 1);
      assert.equal((await withBearer(h, token, 'GET', '/v1/me')).statusCode, 200, 'valid until the last millisecond');
      h.clock.advance(1);
      const expired = await withBearer(h, token, 'GET', '/v1/me');
      assert.equal(expired.statusCode, 401);
      assert.deepEqual(expired.json(), UNAUTHORIZED);
      assert.equal((await mintBearerToken(h, app.apiKey)).statusCode, 200, 'a new token is minted from the key on expiry');
      const left = await h.app.ctx.db.selectFrom('bearer_tokens').select('id').where('api_key_id', '=', app.apiKeyId).execute();
      assert.equal(left.length, 1, 'the expired token was removed');
    });

    test('POST /v1/token refusals: body 400, missing/unknown/revoked key 401, workspace key (or a token, a session) 403', async (t) => {
      const h = await adminHarness(t, backend);
      const { ws, app, user } = await populatedWorkspace(h);
      const bodyRefused = {
        code: 'bad_request',
        message: 'POST /v1/token takes no body: send only the app API key, in X-API-KEY.',
        data: [{ path: 'body', message: 'must be absent' }],
      };
      for (const [name, options] of [
        ['a JSON body', { payload: {} }],
        ['a JSON body with fields', { payload: { apiKey: app.apiKey } }],
        ['a text body', { payload: 'hello', headers: { 'content-type': 'text/plain' } }],
        ['a body of no declared type', { payload: 'x', headers: { 'content-type': '' } }],
      ] as const) {
        const res = await h.as(app.apiKey, { method: 'POST', url: '/v1/token', ...options });
        assert.equal(res.statusCode, 400, name);
        assert.deepEqual(res.json(), bodyRefused, name);
      }
      const emptyJson = await h.as(app.apiKey, { method: 'POST', url: '/v1/token', headers: { 'content-type': 'application/json' } });
      assert.equal(emptyJson.statusCode, 200, 'Content-Type: application/json without a body is no body');

      const missing = await h.app.inject({ method: 'POST', url: '/v1/token' });
      assert.equal(missing.statusCode, 401);
      assert.deepEqual(missing.json(), {
        code: 'unauthorized',
        message: 'Missing credentials: send your API key in the X-API-KEY header.',
        data: null,
      });
      const missingWithBody = await h.app.inject({ method: 'POST', url: '/v1/token', payload: {} });
      assert.equal(missingWithBody.statusCode, 401, 'authentication comes first');
      const unknown = await mintBearerToken(h, `ppk_${'a'.repeat(59)}`);
      assert.equal(unknown.statusCode, 401);
      assert.deepEqual(unknown.json(), UNAUTHORIZED);

      const workspaceKey = await mintBearerToken(h, ws.apiKey);
      assert.equal(workspaceKey.statusCode, 403);
      assert.deepEqual(workspaceKey.json(), {
        code: 'forbidden',
        message: 'Only app API keys mint tokens; this is a workspace key.',
        data: null,
      });
      const { token } = (await mintBearerToken(h, app.apiKey)).json();
      const byBearer = await withBearer(h, token, 'POST', '/v1/token');
      assert.equal(byBearer.statusCode, 403);
      assert.deepEqual(byBearer.json(), {
        code: 'forbidden',
        message: 'Tokens are minted with an app API key in X-API-KEY, not with a token or a session.',
        data: null,
      });
      const s = await mintSession(h, ws.workspaceId, { apiKey: app.apiKey, internalUserId: user.id });
      assert.equal((await mintBearerToken(h, sessionKey(ws.workspaceId, app.apiKey, s.tokenId))).statusCode, 403);

      await revokeKey(h, ws.workspaceId, app.apiKeyId);
      const revoked = await mintBearerToken(h, app.apiKey);
      assert.equal(revoked.statusCode, 401);
      assert.deepEqual(revoked.json(), UNAUTHORIZED);
    });

    test('bearer refusals: unknown, malformed, other schemes, key revoked — 401; X-API-KEY wins when both are sent', async (t) => {
      const h = await adminHarness(t, backend);
      const { ws, app } = await populatedWorkspace(h);
      const other = await h.appKey(ws.workspaceId, OTHER_APP_ID);
      const { token } = (await mintBearerToken(h, app.apiKey)).json();
      const { token: otherToken } = (await mintBearerToken(h, other.apiKey)).json();
      for (const [name, value] of [
        ['unknown token', `ppt_${'A'.repeat(43)}`],
        ['altered token', `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`],
        ['malformed token', 'not-a-token'],
        ['an API key as bearer', app.apiKey],
      ]) {
        const res = await withBearer(h, value, 'GET', '/v1/me');
        assert.equal(res.statusCode, 401, name);
        assert.deepEqual(res.json(), UNAUTHORIZED, name);
      }
      const basic = await h.app.inject({
        method: 'GET',
        url: '/v1/me',
        headers: { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` },
      });
      assert.equal(basic.statusCode, 401);
      assert.deepEqual(basic.json(), {
        code: 'unauthorized',
        message: 'Unsupported Authorization header: send Authorization: Bearer <token from POST /v1/token>, or your API key in X-API-KEY.',
        data: null,
      });
      const both = await h.app.inject({
        method: 'GET',
        url: '/v1/me',
        headers: { authorization: `Bearer ${token}`, 'x-api-key': ws.apiKey },
      });
      assert.equal(both.json().type, 'workspace');

      await revokeKey(h, ws.workspaceId, app.apiKeyId);
      const revoked = await withBearer(h, token, 'GET', '/v1/me');
      assert.equal(revoked.statusCode, 401);
      assert.deepEqual(revoked.json(), UNAUTHORIZED);
      assert.equal((await withBearer(h, otherToken, 'GET', '/v1/me')).statusCode, 200, 'another key’s token lives on');
    });

    test('revocation is seen at once by the process that made it and within a second by another (two apps, two handles on one database)', async (t) => {
      const databaseUrl = await freshDatabaseUrl(t, backend, { sqliteFile: true });
      const clock = new TestClock(NOON);
      const a = await adminHarness(t, backend, { databaseUrl, clock });
      const b = await adminHarness(t, backend, { databaseUrl, clock });
      const { ws, app, user, client } = await populatedWorkspace(a);
      const { token } = (await mintBearerToken(a, app.apiKey)).json();
      const userSession = await mintSession(a, ws.workspaceId, { apiKey: app.apiKey, internalUserId: user.id });
      const clientSession = await mintSession(b, ws.workspaceId, { apiKey: app.apiKey, clientId: client.id });
      const asUser = sessionKey(ws.workspaceId, app.apiKey, userSession.tokenId);
      const asClient = sessionKey(ws.workspaceId, app.apiKey, clientSession.tokenId);
      for (const h of [a, b]) {
        assert.equal((await withBearer(h, token, 'GET', '/v1/me')).statusCode, 200);
        assert.equal((await h.as(asUser, { method: 'GET', url: '/v1/me' })).statusCode, 200);
        assert.equal((await h.as(asClient, { method: 'GET', url: '/v1/me' })).statusCode, 200);
      }
      const revoked = await adminRequest(b, 'DELETE', `/admin/workspaces/${ws.workspaceId}/sessions/${userSession.tokenId}`);
      assert.equal(revoked.statusCode, 200);
      assert.deepEqual(revoked.json(), { tokenId: userSession.tokenId, revoked: true });
      assert.deepEqual(
        (await b.as(asUser, { method: 'GET', url: '/v1/me' })).json(),
        UNAUTHORIZED,
        'the revoked session, where it was revoked',
      );
      await heldWithin(
        1000,
        'the revoked session, on the other app',
        async () => (await a.as(asUser, { method: 'GET', url: '/v1/me' })).statusCode === 401,
      );
      assert.deepEqual((await a.as(asUser, { method: 'GET', url: '/v1/me' })).json(), UNAUTHORIZED);
      for (const h of [a, b]) assert.equal((await h.as(asClient, { method: 'GET', url: '/v1/me' })).statusCode, 200, 'the other session');

      await revokeKey(b, ws.workspaceId, app.apiKeyId);
      assert.deepEqual((await withBearer(b, token, 'GET', '/v1/me')).json(), UNAUTHORIZED, 'the bearer token of the revoked key');
      assert.deepEqual((await b.as(asClient, { method: 'GET', url: '/v1/me' })).json(), UNAUTHORIZED, 'the session of the revoked key');
      // Polled through the session (answered 200 until then: refusals would count as failed authentications).
      await heldWithin(1000, 'the session of the revoked key, on the other app', async () => {
        return (await a.as(asClient, { method: 'GET', url: '/v1/me' })).statusCode === 401;
      });
      assert.deepEqual(
        (await withBearer(a, token, 'GET', '/v1/me')).json(),
        UNAUTHORIZED,
        'the revoked key’s bearer token, on the other app',
      );
    });

    test('bearer requests share their key’s bucket and count against the quota like it', async (t) => {
      const h = await adminHarness(t, backend, { env: CONTRACT_LIMITS });
      const ws = await h.workspace('B', 100);
      const app = await h.appKey(ws.workspaceId, APP_ID);
      const other = await h.appKey(ws.workspaceId, OTHER_APP_ID);
      const minted = await mintBearerToken(h, app.apiKey);
      assert.deepEqual(
        [minted.headers['x-ratelimit-limit'], minted.headers['x-ratelimit-remaining'], minted.headers['x-service-quota-remaining']],
        ['5', '4', '99'],
      );
      const { token } = minted.json();
      assert.deepEqual(remainingOf(await withBearer(h, token, 'GET', '/v1/me')), ['19', '98']);
      assert.deepEqual(
        remainingOf(await h.as(app.apiKey, { method: 'GET', url: '/v1/me' })),
        ['18', '97'],
        'the key and its token: one bucket',
      );
      assert.deepEqual(remainingOf(await withBearer(h, token, 'GET', '/v1/me')), ['17', '96']);
      assert.deepEqual(
        remainingOf(await h.as(other.apiKey, { method: 'GET', url: '/v1/me' })),
        ['19', '95'],
        'another key: its own bucket, the same quota',
      );
      assert.deepEqual(
        remainingOf(await withBearer(h, token, 'POST', '/v1/companies', { name: 'W' })),
        ['3', '94'],
        'writes: the key’s write bucket',
      );
    });
  });
}
