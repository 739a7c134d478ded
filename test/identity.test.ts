// Identity (contract §1, §2, §6, §7): bearer tokens from POST /v1/token, end-user sessions minted on the
// admin surface and by `portal sessions`, /v1/me for every principal, limits and audit actors by principal.
import assert from 'node:assert/strict';
import { createDecipheriv, createHash, createHmac } from 'node:crypto';
import { type TestContext, describe, test } from 'node:test';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { revokeApiKey } from '../src/modules/api-keys/api-keys.service.js';
import { unitOfWork } from '../src/db/unit-of-work.js';
import { systemCaller } from '../src/lib/caller.js';
import { recordAudit } from '../src/modules/audit-log/audit-log.writer.js';
import { createInternalUser } from '../src/modules/internal-users/internal-users.service.js';
import { type Backend, BACKENDS, type Harness, type HarnessOptions, TestClock, freshDatabaseUrl, harness } from './helpers/harness.js';
import { oneJson, portal } from './helpers/cli.js';

const ADMIN_TOKEN = 'test-admin-token-0123456789';
const NOON = Date.parse('2026-01-15T12:00:00.000Z');
const APP_ID = '7b0e4a7e-8c1f-4d55-9f3a-2d5c3a1e9b11';
const OTHER_APP_ID = '1d7f5c1e-0b1a-4c4e-8f7e-5b9a2c3d4e5f';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const UNAUTHORIZED = { code: 'unauthorized', message: 'Missing, unknown, revoked or expired credentials.', data: null };
const CONTRACT_LIMITS = { RATE_LIMIT_GET_CAPACITY: '20', RATE_LIMIT_GET_REFILL: '100', RATE_LIMIT_WRITE_CAPACITY: '5', RATE_LIMIT_WRITE_REFILL: '20' };

/** The official Node SDK's decryption, re-implemented: AES-128-CBC, key = 16 bytes from the first 32 hex chars of HMAC-SHA256(apiKey, ''). */
function sdkDecrypt(apiKey: string, token: string): Record<string, unknown> {
  const key = Buffer.from(createHmac('sha256', apiKey).digest('hex').slice(0, 32), 'hex');
  const blob = Buffer.from(token, 'hex');
  const decipher = createDecipheriv('aes-128-cbc', key, blob.subarray(0, 16));
  return JSON.parse(Buffer.concat([decipher.update(blob.subarray(16)), decipher.final()]).toString('utf8'));
}

function limitHeaders(res: { headers: Record<string, unknown> }) {
  const pick = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-service-quota-limit', 'x-service-quota-remaining', 'x-service-quota-reset'];
  return Object.fromEntries(pick.filter((h) => res.headers[h] !== undefined).map((h) => [h, String(res.headers[h])]));
}

function identityHarness(t: TestContext, backend: Backend, opts: HarnessOptions = {}) {
  return harness(t, backend, { clock: new TestClock(NOON), ...opts, env: { PORTAL_ADMIN_TOKEN: ADMIN_TOKEN, ...opts.env } });
}

const mintToken = (h: Harness, apiKey: string) => h.as(apiKey, { method: 'POST', url: '/v1/token' });
const withBearer = (h: Harness, token: string, method: 'GET' | 'POST', url: string, payload?: object) =>
  h.app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}) });
const admin = (h: Harness, method: 'POST' | 'DELETE', url: string, payload?: object, token = ADMIN_TOKEN) =>
  h.app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}) });

/** A workspace with an app key, an internal user (staff) and a client in a named company. */
async function fixture(h: Harness, name = 'Acme') {
  const ws = await h.workspace(name);
  const app = await h.appKey(ws.workspaceId, APP_ID);
  const user = await createInternalUser(h.app.ctx.database, systemCaller(ws.workspaceId, h.clock.now()), { email: `staff@${name}.test`, givenName: 'Sam', familyName: 'Staff' });
  const company = (await h.as(ws.apiKey, { method: 'POST', url: '/v1/companies', payload: { name: `${name} Co` } })).json();
  const client = (await h.as(ws.apiKey, { method: 'POST', url: '/v1/clients', payload: { email: `ada@${name}.test`, givenName: 'Ada', familyName: 'L', companyId: company.id } })).json();
  return { ws, app, user, company, client };
}

/** Mints a session on the admin surface; its 200 body. */
async function session(h: Harness, workspaceId: string, body: Record<string, string>) {
  const res = await admin(h, 'POST', `/admin/workspaces/${workspaceId}/sessions`, body);
  assert.equal(res.statusCode, 200, res.body);
  return res.json() as { token: string; tokenId: string; expiresAt: number };
}

const sessionKey = (workspaceId: string, apiKey: string, tokenId: string) => `${workspaceId}/${apiKey}/${tokenId}`;

for (const backend of BACKENDS) {
  describe(`POST /v1/token and bearer tokens [${backend}]`, () => {
    test('an app key mints a one-hour token (Unix seconds) that works with the key’s rights; only its hash is stored', async (t) => {
      const h = await identityHarness(t, backend);
      const { ws, app } = await fixture(h);
      const res = await mintToken(h, app.apiKey);
      assert.equal(res.statusCode, 200);
      const body = res.json();
      assert.deepEqual(Object.keys(body).sort(), ['token', 'tokenExpiresAt']);
      assert.equal(body.tokenExpiresAt, NOON / 1000 + 3600);
      assert.match(body.token, /^ppt_[A-Za-z0-9_-]{43}$/);
      assert.equal((await mintToken(h, `${ws.workspaceId}/${app.apiKey}`)).statusCode, 200, 'the workspaceId/key form mints too');

      const me = await withBearer(h, body.token, 'GET', '/v1/me');
      assert.equal(me.statusCode, 200);
      assert.deepEqual(me.json(), { object: 'me', workspaceId: ws.workspaceId, type: 'app', id: APP_ID, apiKeyId: app.apiKeyId, appId: APP_ID });
      const created = await withBearer(h, body.token, 'POST', '/v1/companies', { name: 'By bearer' });
      assert.equal(created.statusCode, 200);
      assert.equal((await withBearer(h, body.token, 'GET', `/v1/companies/${created.json().id}`)).json().name, 'By bearer');

      const rows = await h.app.ctx.db.selectFrom('bearer_tokens').selectAll().where('api_key_id', '=', app.apiKeyId).execute();
      assert.equal(rows.length, 2);
      assert.ok(rows.some((r) => r.token_hash === createHash('sha256').update(body.token).digest('hex')));
      assert.ok(rows.every((r) => !JSON.stringify(r).includes(body.token.slice(4))), 'the token itself is not stored');
    });

    test('a token is refused (401) from tokenExpiresAt on; minting sweeps the key’s expired tokens', async (t) => {
      const h = await identityHarness(t, backend);
      const { app } = await fixture(h);
      const { token } = (await mintToken(h, app.apiKey)).json();
      h.clock.advance(3600_000 - 1);
      assert.equal((await withBearer(h, token, 'GET', '/v1/me')).statusCode, 200, 'valid until the last millisecond');
      h.clock.advance(1);
      const expired = await withBearer(h, token, 'GET', '/v1/me');
      assert.equal(expired.statusCode, 401);
      assert.deepEqual(expired.json(), UNAUTHORIZED);
      assert.equal((await mintToken(h, app.apiKey)).statusCode, 200, 'a new token is minted from the key on expiry');
      const left = await h.app.ctx.db.selectFrom('bearer_tokens').select('id').where('api_key_id', '=', app.apiKeyId).execute();
      assert.equal(left.length, 1, 'the expired token was removed');
    });

    test('POST /v1/token refusals: body 400, missing/unknown/revoked key 401, workspace key (or a token, a session) 403', async (t) => {
      const h = await identityHarness(t, backend);
      const { ws, app, user } = await fixture(h);
      const bodyRefused = { code: 'bad_request', message: 'POST /v1/token takes no body: send only the app API key, in X-API-KEY.', data: [{ path: 'body', message: 'must be absent' }] };
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
      assert.deepEqual(missing.json(), { code: 'unauthorized', message: 'Missing credentials: send your API key in the X-API-KEY header.', data: null });
      const missingWithBody = await h.app.inject({ method: 'POST', url: '/v1/token', payload: {} });
      assert.equal(missingWithBody.statusCode, 401, 'authentication comes first');
      const unknown = await mintToken(h, `ppk_${'a'.repeat(59)}`);
      assert.equal(unknown.statusCode, 401);
      assert.deepEqual(unknown.json(), UNAUTHORIZED);

      const workspaceKey = await mintToken(h, ws.apiKey);
      assert.equal(workspaceKey.statusCode, 403);
      assert.deepEqual(workspaceKey.json(), { code: 'forbidden', message: 'Only app API keys mint tokens; this is a workspace key.', data: null });
      const { token } = (await mintToken(h, app.apiKey)).json();
      const byBearer = await withBearer(h, token, 'POST', '/v1/token');
      assert.equal(byBearer.statusCode, 403);
      assert.deepEqual(byBearer.json(), { code: 'forbidden', message: 'Tokens are minted with an app API key in X-API-KEY, not with a token or a session.', data: null });
      const s = await session(h, ws.workspaceId, { apiKey: app.apiKey, internalUserId: user.id });
      assert.equal((await mintToken(h, sessionKey(ws.workspaceId, app.apiKey, s.tokenId))).statusCode, 403);

      await revokeApiKey(h.app.ctx.database, systemCaller(ws.workspaceId, h.clock.now()), app.apiKeyId);
      const revoked = await mintToken(h, app.apiKey);
      assert.equal(revoked.statusCode, 401);
      assert.deepEqual(revoked.json(), UNAUTHORIZED);
    });

    test('bearer refusals: unknown, malformed, other schemes, key revoked — 401; X-API-KEY wins when both are sent', async (t) => {
      const h = await identityHarness(t, backend);
      const { ws, app } = await fixture(h);
      const other = await h.appKey(ws.workspaceId, OTHER_APP_ID);
      const { token } = (await mintToken(h, app.apiKey)).json();
      const { token: otherToken } = (await mintToken(h, other.apiKey)).json();
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
      const basic = await h.app.inject({ method: 'GET', url: '/v1/me', headers: { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` } });
      assert.equal(basic.statusCode, 401);
      assert.deepEqual(basic.json(), {
        code: 'unauthorized',
        message: 'Unsupported Authorization header: send Authorization: Bearer <token from POST /v1/token>, or your API key in X-API-KEY.',
        data: null,
      });
      const both = await h.app.inject({ method: 'GET', url: '/v1/me', headers: { authorization: `Bearer ${token}`, 'x-api-key': ws.apiKey } });
      assert.equal(both.json().type, 'workspace');

      await revokeApiKey(h.app.ctx.database, systemCaller(ws.workspaceId, h.clock.now()), app.apiKeyId);
      const revoked = await withBearer(h, token, 'GET', '/v1/me');
      assert.equal(revoked.statusCode, 401);
      assert.deepEqual(revoked.json(), UNAUTHORIZED);
      assert.equal((await withBearer(h, otherToken, 'GET', '/v1/me')).statusCode, 200, 'another key’s token lives on');
    });

    test('revocation is seen by every server process: two apps on one database', async (t) => {
      const databaseUrl = await freshDatabaseUrl(t, backend, { sqliteFile: true });
      const clock = new TestClock(NOON);
      const a = await identityHarness(t, backend, { databaseUrl, clock });
      const b = await identityHarness(t, backend, { databaseUrl, clock });
      const { ws, app, user, client } = await fixture(a);
      const { token } = (await mintToken(a, app.apiKey)).json();
      const userSession = await session(a, ws.workspaceId, { apiKey: app.apiKey, internalUserId: user.id });
      const clientSession = await session(b, ws.workspaceId, { apiKey: app.apiKey, clientId: client.id });
      const asUser = sessionKey(ws.workspaceId, app.apiKey, userSession.tokenId);
      const asClient = sessionKey(ws.workspaceId, app.apiKey, clientSession.tokenId);
      for (const h of [a, b]) {
        assert.equal((await withBearer(h, token, 'GET', '/v1/me')).statusCode, 200);
        assert.equal((await h.as(asUser, { method: 'GET', url: '/v1/me' })).statusCode, 200);
        assert.equal((await h.as(asClient, { method: 'GET', url: '/v1/me' })).statusCode, 200);
      }
      const revoked = await admin(b, 'DELETE', `/admin/workspaces/${ws.workspaceId}/sessions/${userSession.tokenId}`);
      assert.equal(revoked.statusCode, 200);
      assert.deepEqual(revoked.json(), { tokenId: userSession.tokenId, revoked: true });
      for (const h of [a, b]) {
        assert.deepEqual((await h.as(asUser, { method: 'GET', url: '/v1/me' })).json(), UNAUTHORIZED, 'the revoked session');
        assert.equal((await h.as(asClient, { method: 'GET', url: '/v1/me' })).statusCode, 200, 'the other session');
      }
      await revokeApiKey(b.app.ctx.database, systemCaller(ws.workspaceId, b.clock.now()), app.apiKeyId);
      for (const h of [a, b]) {
        assert.deepEqual((await withBearer(h, token, 'GET', '/v1/me')).json(), UNAUTHORIZED, 'the bearer token of the revoked key');
        assert.deepEqual((await h.as(asClient, { method: 'GET', url: '/v1/me' })).json(), UNAUTHORIZED, 'the session of the revoked key');
      }
    });
  });

  describe(`end-user sessions [${backend}]`, () => {
    test('the admin surface mints tokens the official SDK decrypts; the session acts as that internal user or client', async (t) => {
      const h = await identityHarness(t, backend);
      const { ws, app, user, company, client } = await fixture(h);

      const staff = await session(h, ws.workspaceId, { apiKey: app.apiKey, internalUserId: user.id });
      assert.deepEqual(Object.keys(staff).sort(), ['expiresAt', 'token', 'tokenId']);
      assert.match(staff.tokenId, UUID);
      assert.equal(staff.expiresAt, NOON / 1000 + 86_400, 'default lifetime: 24 hours');
      assert.match(staff.token, /^([0-9a-f]{32})+$/, 'hex of IV and whole AES blocks');
      assert.deepEqual(sdkDecrypt(app.apiKey, staff.token), { workspaceId: ws.workspaceId, internalUserId: user.id, tokenId: staff.tokenId });

      const forClient = await session(h, ws.workspaceId, { apiKey: app.apiKey, clientId: client.id });
      const payload = sdkDecrypt(app.apiKey, forClient.token);
      assert.deepEqual(payload, { workspaceId: ws.workspaceId, clientId: client.id, companyId: company.id, tokenId: forClient.tokenId });
      assert.ok(Object.values(payload).every((v) => typeof v === 'string'), 'every value a string, as the SDK requires');
      const explicit = await session(h, ws.workspaceId, { apiKey: app.apiKey, clientId: client.id, companyId: company.id });
      assert.equal(sdkDecrypt(app.apiKey, explicit.token).companyId, company.id);
      assert.throws(() => sdkDecrypt(`${app.apiKey.slice(0, -1)}x`, staff.token), 'another key does not decrypt it');

      const meStaff = await h.as(sessionKey(ws.workspaceId, app.apiKey, staff.tokenId), { method: 'GET', url: '/v1/me' });
      assert.equal(meStaff.statusCode, 200);
      assert.deepEqual(meStaff.json(), { object: 'me', workspaceId: ws.workspaceId, type: 'internalUser', id: user.id, apiKeyId: app.apiKeyId, appId: APP_ID, tokenId: staff.tokenId });
      const meClient = await h.as(sessionKey(ws.workspaceId, app.apiKey, forClient.tokenId), { method: 'GET', url: '/v1/me' });
      assert.deepEqual(meClient.json(), {
        object: 'me',
        workspaceId: ws.workspaceId,
        type: 'client',
        id: client.id,
        apiKeyId: app.apiKeyId,
        appId: APP_ID,
        companyId: company.id,
        tokenId: forClient.tokenId,
      });
      const row = await h.app.ctx.db.selectFrom('sessions').selectAll().where('id', '=', forClient.tokenId).executeTakeFirstOrThrow();
      assert.deepEqual(
        { ...row },
        {
          id: forClient.tokenId,
          workspace_id: ws.workspaceId,
          api_key_id: app.apiKeyId,
          internal_user_id: null,
          client_id: client.id,
          company_id: company.id,
          created_at: '2026-01-15T12:00:00.000Z',
          expires_at: '2026-01-16T12:00:00.000Z',
          revoked_at: null,
        },
      );
    });

    test('refused (401): tampered tokenId, foreign workspace, another key, expired, revoked, key revoked, user gone', async (t) => {
      const h = await identityHarness(t, backend);
      const { ws, app, user, client } = await fixture(h);
      const other = await fixture(h, 'Other');
      const sameWorkspaceApp = await h.appKey(ws.workspaceId, OTHER_APP_ID);
      const s = await session(h, ws.workspaceId, { apiKey: app.apiKey, internalUserId: user.id });
      const me = (key: string) => h.as(key, { method: 'GET', url: '/v1/me' });
      assert.equal((await me(sessionKey(ws.workspaceId, app.apiKey, s.tokenId))).statusCode, 200);
      assert.equal((await me(sessionKey(ws.workspaceId, app.apiKey, s.tokenId.toUpperCase()))).statusCode, 200, 'ids are case-insensitive');

      const tampered = `${s.tokenId.slice(0, -1)}${s.tokenId.endsWith('0') ? '1' : '0'}`;
      const otherSession = await session(h, other.ws.workspaceId, { apiKey: other.app.apiKey, internalUserId: other.user.id });
      const cases: Record<string, string> = {
        'a tampered tokenId': sessionKey(ws.workspaceId, app.apiKey, tampered),
        'a tokenId that is not a UUID': sessionKey(ws.workspaceId, app.apiKey, 'abc'),
        'an empty tokenId': sessionKey(ws.workspaceId, app.apiKey, ''),
        'another workspace named': sessionKey(other.ws.workspaceId, app.apiKey, s.tokenId),
        'another workspace’s session with this key': sessionKey(ws.workspaceId, app.apiKey, otherSession.tokenId),
        'another workspace’s key and session named with this workspace': sessionKey(ws.workspaceId, other.app.apiKey, otherSession.tokenId),
        'another app key of the workspace': sessionKey(ws.workspaceId, sameWorkspaceApp.apiKey, s.tokenId),
        'the workspace key': sessionKey(ws.workspaceId, ws.apiKey, s.tokenId),
        'a wrong secret': sessionKey(ws.workspaceId, `${app.apiKey.slice(0, -1)}${app.apiKey.endsWith('A') ? 'B' : 'A'}`, s.tokenId),
        'a non-UUID workspace': sessionKey('acme', app.apiKey, s.tokenId),
        'four parts': `${sessionKey(ws.workspaceId, app.apiKey, s.tokenId)}/x`,
      };
      for (const [name, header] of Object.entries(cases)) {
        const res = await me(header);
        assert.equal(res.statusCode, 401, name);
        assert.deepEqual(res.json(), UNAUTHORIZED, name);
      }

      // Expiry: from expiresAt on.
      h.clock.advance(86_400_000 - 1);
      assert.equal((await me(sessionKey(ws.workspaceId, app.apiKey, s.tokenId))).statusCode, 200);
      h.clock.advance(1);
      assert.deepEqual((await me(sessionKey(ws.workspaceId, app.apiKey, s.tokenId))).json(), UNAUTHORIZED);

      // Revoked on the admin surface (a second revoke finds nothing).
      const s2 = await session(h, ws.workspaceId, { apiKey: app.apiKey, internalUserId: user.id });
      assert.equal((await admin(h, 'DELETE', `/admin/workspaces/${ws.workspaceId}/sessions/${s2.tokenId}`)).statusCode, 200);
      assert.deepEqual((await me(sessionKey(ws.workspaceId, app.apiKey, s2.tokenId))).json(), UNAUTHORIZED);
      const again = await admin(h, 'DELETE', `/admin/workspaces/${ws.workspaceId}/sessions/${s2.tokenId}`);
      assert.equal(again.statusCode, 404);
      assert.deepEqual(again.json(), { code: 'not_found', message: 'Session not found.', data: null });
      const s3 = await session(h, ws.workspaceId, { apiKey: app.apiKey, internalUserId: user.id });
      assert.equal((await admin(h, 'DELETE', `/admin/workspaces/${other.ws.workspaceId}/sessions/${s3.tokenId}`)).statusCode, 404, 'another workspace cannot revoke it');
      assert.equal((await me(sessionKey(ws.workspaceId, app.apiKey, s3.tokenId))).statusCode, 200);

      // The end user deleted: the client through the API, the internal user in the database.
      const c = await session(h, ws.workspaceId, { apiKey: app.apiKey, clientId: client.id });
      assert.equal((await me(sessionKey(ws.workspaceId, app.apiKey, c.tokenId))).statusCode, 200);
      assert.equal((await h.as(ws.apiKey, { method: 'DELETE', url: `/v1/clients/${client.id}` })).statusCode, 200);
      assert.deepEqual((await me(sessionKey(ws.workspaceId, app.apiKey, c.tokenId))).json(), UNAUTHORIZED);
      await h.app.ctx.db.deleteFrom('internal_users').where('id', '=', user.id).execute();
      assert.deepEqual((await me(sessionKey(ws.workspaceId, app.apiKey, s3.tokenId))).json(), UNAUTHORIZED);

      // The key revoked.
      const o = await session(h, other.ws.workspaceId, { apiKey: other.app.apiKey, clientId: other.client.id });
      await revokeApiKey(h.app.ctx.database, systemCaller(other.ws.workspaceId, h.clock.now()), other.app.apiKeyId);
      assert.deepEqual((await me(sessionKey(other.ws.workspaceId, other.app.apiKey, o.tokenId))).json(), UNAUTHORIZED);
    });

    test('a client session whose client left the session’s company is refused', async (t) => {
      const h = await identityHarness(t, backend);
      const { ws, app, client } = await fixture(h);
      const s = await session(h, ws.workspaceId, { apiKey: app.apiKey, clientId: client.id });
      const moved = await h.as(ws.apiKey, { method: 'POST', url: '/v1/companies', payload: { name: 'Elsewhere' } });
      assert.equal((await h.as(ws.apiKey, { method: 'PATCH', url: `/v1/clients/${client.id}`, payload: { companyId: moved.json().id } })).statusCode, 200);
      assert.deepEqual((await h.as(sessionKey(ws.workspaceId, app.apiKey, s.tokenId), { method: 'GET', url: '/v1/me' })).json(), UNAUTHORIZED);
    });

    test('the admin surface: token guard, input checks, configurable lifetime', async (t) => {
      const h = await identityHarness(t, backend, { env: { SESSION_LIFETIME_SECONDS: '600' } });
      const { ws, app, user, client } = await fixture(h);
      const other = await fixture(h, 'Other');
      const url = `/admin/workspaces/${ws.workspaceId}/sessions`;
      const wrongToken = { code: 'unauthorized', message: 'Missing or wrong admin token: send Authorization: Bearer <PORTAL_ADMIN_TOKEN>.', data: null };
      const noToken = await h.app.inject({ method: 'POST', url, payload: { apiKey: app.apiKey, internalUserId: user.id } });
      assert.equal(noToken.statusCode, 401);
      assert.deepEqual(noToken.json(), wrongToken);
      for (const token of [`${ADMIN_TOKEN}x`, ADMIN_TOKEN.slice(1), 'short']) {
        const res = await admin(h, 'POST', url, { apiKey: app.apiKey, internalUserId: user.id }, token);
        assert.equal(res.statusCode, 401);
        assert.deepEqual(res.json(), wrongToken);
      }
      assert.equal((await h.as(ws.apiKey, { method: 'POST', url, payload: { apiKey: app.apiKey, internalUserId: user.id } })).statusCode, 401, 'an API key is no admin token');

      assert.equal((await session(h, ws.workspaceId, { apiKey: app.apiKey, internalUserId: user.id })).expiresAt, NOON / 1000 + 600, 'SESSION_LIFETIME_SECONDS');

      const refused = async (body: object, status: number, expected: object, path = url) => {
        const res = await admin(h, 'POST', path, body);
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
      await refused({ apiKey: app.apiKey, clientId: other.client.id }, 404, { code: 'not_found', message: 'Client not found.', data: null });
      await refused({ apiKey: app.apiKey, internalUserId: other.user.id }, 404, { code: 'not_found', message: 'Internal user not found.', data: null });
      await refused({ apiKey: app.apiKey, internalUserId: user.id }, 404, { code: 'not_found', message: 'Workspace not found.', data: null }, '/admin/workspaces/3f1c2b4a-5d6e-4f70-8a9b-0c1d2e3f4a5b/sessions');
      await refused({ apiKey: app.apiKey, internalUserId: user.id, expires: 5 }, 400, {
        code: 'bad_request',
        message: 'body.expires is not a known field',
        data: [{ path: 'body.expires', message: 'is not a known field' }],
      });
    });

    test('without PORTAL_ADMIN_TOKEN the admin surface does not exist (404)', async (t) => {
      const h = await harness(t, backend);
      const ws = await h.workspace();
      const res = await admin(h, 'POST', `/admin/workspaces/${ws.workspaceId}/sessions`, {});
      assert.equal(res.statusCode, 404);
      assert.deepEqual(res.json(), { code: 'not_found', message: `No route POST /admin/workspaces/${ws.workspaceId}/sessions.`, data: null });
    });

    test('failed authentications of every form share the per-IP limit, admin token included', async (t) => {
      const h = await identityHarness(t, backend);
      const { ws, app } = await fixture(h);
      const from = (headers: Record<string, string>, url = '/v1/me') => h.app.inject({ method: 'GET', url, headers, remoteAddress: '10.9.9.9' });
      const bad: Record<string, string>[] = [
        { 'x-api-key': `ppk_${'x'.repeat(59)}` },
        { authorization: `Bearer ppt_${'x'.repeat(43)}` },
        { 'x-api-key': sessionKey(ws.workspaceId, app.apiKey, '3f1c2b4a-5d6e-4f70-8a9b-0c1d2e3f4a5b') },
      ];
      for (let i = 0; i < 27; i++) assert.equal((await from(bad[i % 3])).statusCode, 401, `failure ${i + 1}`);
      for (let i = 0; i < 3; i++) {
        assert.equal((await h.app.inject({ method: 'DELETE', url: `/admin/workspaces/${ws.workspaceId}/sessions/x`, headers: { authorization: 'Bearer nope' }, remoteAddress: '10.9.9.9' })).statusCode, 401);
      }
      const blocked = await from(bad[1]);
      assert.equal(blocked.statusCode, 429, 'the 31st failure');
      assert.equal(blocked.json().code, 'rate_limit_exceeded');
      assert.equal((await from({ 'x-api-key': app.apiKey })).statusCode, 429, 'not even a valid key is verified now');
    });
  });

  describe(`principals: /v1/me, limits and audit actors [${backend}]`, () => {
    test('GET /v1/me answers every principal kind, with the limit headers', async (t) => {
      const h = await identityHarness(t, backend, { env: CONTRACT_LIMITS });
      const { ws, app, user, company, client } = await fixture(h);
      const { token } = (await mintToken(h, app.apiKey)).json();
      const staff = await session(h, ws.workspaceId, { apiKey: app.apiKey, internalUserId: user.id });
      const forClient = await session(h, ws.workspaceId, { apiKey: app.apiKey, clientId: client.id });
      const base = { object: 'me', workspaceId: ws.workspaceId };
      const cases: [string, () => Promise<{ statusCode: number; json(): unknown; headers: Record<string, unknown> }>, object][] = [
        ['workspace key', () => h.as(ws.apiKey, { method: 'GET', url: '/v1/me' }), { ...base, type: 'workspace', id: ws.apiKeyId, apiKeyId: ws.apiKeyId }],
        ['app key', () => h.as(app.apiKey, { method: 'GET', url: '/v1/me' }), { ...base, type: 'app', id: APP_ID, apiKeyId: app.apiKeyId, appId: APP_ID }],
        ['bearer token', () => withBearer(h, token, 'GET', '/v1/me'), { ...base, type: 'app', id: APP_ID, apiKeyId: app.apiKeyId, appId: APP_ID }],
        [
          'internal-user session',
          () => h.as(sessionKey(ws.workspaceId, app.apiKey, staff.tokenId), { method: 'GET', url: '/v1/me' }),
          { ...base, type: 'internalUser', id: user.id, apiKeyId: app.apiKeyId, appId: APP_ID, tokenId: staff.tokenId },
        ],
        [
          'client session',
          () => h.as(sessionKey(ws.workspaceId, app.apiKey, forClient.tokenId), { method: 'GET', url: '/v1/me' }),
          { ...base, type: 'client', id: client.id, apiKeyId: app.apiKeyId, appId: APP_ID, companyId: company.id, tokenId: forClient.tokenId },
        ],
      ];
      for (const [name, call, expected] of cases) {
        const res = await call();
        assert.equal(res.statusCode, 200, name);
        assert.deepEqual(res.json(), expected, name);
        assert.deepEqual(Object.keys(limitHeaders(res)).sort(), ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-service-quota-limit', 'x-service-quota-remaining', 'x-service-quota-reset'], name);
        assert.equal(res.headers['x-ratelimit-limit'], '20', name);
      }
    });

    test('sessions: exempt from the daily quota, burst bucket of the end user (shared by its sessions, not by its app key)', async (t) => {
      const h = await identityHarness(t, backend, { env: CONTRACT_LIMITS });
      const ws = await h.workspace('Q', 3);
      const app = await h.appKey(ws.workspaceId, APP_ID);
      const user = await createInternalUser(h.app.ctx.database, systemCaller(ws.workspaceId, NOON), { email: 'u@q.test', givenName: 'U', familyName: 'Q' });
      const client = (await h.as(ws.apiKey, { method: 'POST', url: '/v1/clients', payload: { email: 'c@q.test', givenName: 'C', familyName: 'Q' } })).json();
      const remaining = (res: { headers: Record<string, unknown> }) => [String(res.headers['x-ratelimit-remaining']), String(res.headers['x-service-quota-remaining'])];
      // The client create counted one unit (the workspace key): 2 left.
      const s1 = sessionKey(ws.workspaceId, app.apiKey, (await session(h, ws.workspaceId, { apiKey: app.apiKey, internalUserId: user.id })).tokenId);
      const s2 = sessionKey(ws.workspaceId, app.apiKey, (await session(h, ws.workspaceId, { apiKey: app.apiKey, internalUserId: user.id })).tokenId);
      const sc = sessionKey(ws.workspaceId, app.apiKey, (await session(h, ws.workspaceId, { apiKey: app.apiKey, clientId: client.id })).tokenId);
      const get = (key: string) => h.as(key, { method: 'GET', url: '/v1/me' });

      assert.deepEqual(remaining(await get(s1)), ['19', '2'], 'a session request is not counted');
      assert.deepEqual(remaining(await get(s2)), ['18', '2'], 'another session of the same user shares its bucket');
      assert.deepEqual(remaining(await get(sc)), ['19', '2'], 'a client session has the client’s own bucket');
      assert.deepEqual(remaining(await get(app.apiKey)), ['19', '1'], 'the app key has its own bucket and is counted');
      assert.deepEqual(remaining(await get(app.apiKey)), ['18', '0']);
      const exhausted = await get(app.apiKey);
      assert.equal(exhausted.statusCode, 429);
      assert.equal(exhausted.body, '{"error":"quota limit reached"}');
      const stillServed = await get(s1);
      assert.equal(stillServed.statusCode, 200, 'sessions are served past the exhausted quota');
      assert.deepEqual(remaining(stillServed), ['17', '0']);
      const write = await h.as(s1, { method: 'POST', url: '/v1/companies', payload: { name: 'By session' } });
      assert.equal(write.statusCode, 200);
      assert.equal(write.headers['x-ratelimit-limit'], '5');
      assert.equal(write.headers['x-ratelimit-remaining'], '4');

      for (let i = 16; i >= 0; i--) assert.equal((await get(i % 2 ? s1 : s2)).headers['x-ratelimit-remaining'], String(i));
      const limited = await get(s2);
      assert.equal(limited.statusCode, 429);
      assert.equal(limited.json().code, 'rate_limit_exceeded');
      assert.equal((await get(sc)).statusCode, 200, 'the client’s bucket is untouched');
    });

    test('bearer requests share their key’s bucket and count against the quota like it', async (t) => {
      const h = await identityHarness(t, backend, { env: CONTRACT_LIMITS });
      const ws = await h.workspace('B', 100);
      const app = await h.appKey(ws.workspaceId, APP_ID);
      const other = await h.appKey(ws.workspaceId, OTHER_APP_ID);
      const minted = await mintToken(h, app.apiKey);
      assert.deepEqual([minted.headers['x-ratelimit-limit'], minted.headers['x-ratelimit-remaining'], minted.headers['x-service-quota-remaining']], ['5', '4', '99']);
      const { token } = minted.json();
      const seen = (res: { headers: Record<string, unknown> }) => [String(res.headers['x-ratelimit-remaining']), String(res.headers['x-service-quota-remaining'])];
      assert.deepEqual(seen(await withBearer(h, token, 'GET', '/v1/me')), ['19', '98']);
      assert.deepEqual(seen(await h.as(app.apiKey, { method: 'GET', url: '/v1/me' })), ['18', '97'], 'the key and its token: one bucket');
      assert.deepEqual(seen(await withBearer(h, token, 'GET', '/v1/me')), ['17', '96']);
      assert.deepEqual(seen(await h.as(other.apiKey, { method: 'GET', url: '/v1/me' })), ['19', '95'], 'another key: its own bucket, the same quota');
      assert.deepEqual(seen(await withBearer(h, token, 'POST', '/v1/companies', { name: 'W' })), ['3', '94'], 'writes: the key’s write bucket');
    });

    test('audit entries of session writes carry the end user as actor', async (t) => {
      const h = await identityHarness(t, backend, {
        extraV1Routes: (v1) => {
          // Any route a client session may reach records the caller's actor (so this holds whatever a client may write).
          v1.get('/test-audit', { config: { policy: { clientSession: 'read' } } }, async (request) => {
            await unitOfWork(v1.ctx.database, async (work) => recordAudit(work, request.caller.actor, { eventType: 'customEvent', description: 'test' }));
            return { ok: true };
          });
        },
      });
      const { ws, app, user, company, client } = await fixture(h);
      const staff = sessionKey(ws.workspaceId, app.apiKey, (await session(h, ws.workspaceId, { apiKey: app.apiKey, internalUserId: user.id })).tokenId);
      const forClient = sessionKey(ws.workspaceId, app.apiKey, (await session(h, ws.workspaceId, { apiKey: app.apiKey, clientId: client.id })).tokenId);
      const created = await h.as(staff, { method: 'POST', url: '/v1/companies', payload: { name: 'Made by staff' }, headers: { 'user-agent': 'app/1.0' } });
      assert.equal(created.statusCode, 200);
      assert.equal((await h.as(forClient, { method: 'GET', url: '/v1/test-audit' })).statusCode, 200);
      assert.equal((await h.as(app.apiKey, { method: 'GET', url: '/v1/test-audit' })).statusCode, 200);

      const pick = (r: { source: string; actor_id: string | null; actor_type: string | null; actor_role: string | null; api_key_ref: string | null; company_id: string | null }) => ({
        source: r.source,
        actorId: r.actor_id,
        actorType: r.actor_type,
        actorRole: r.actor_role,
        apiKeyRef: r.api_key_ref,
        companyId: r.company_id,
      });
      const rows = await h.app.ctx.db.selectFrom('audit_log').selectAll().where('workspace_id', '=', ws.workspaceId).where('source', '=', 'platform').execute();
      const companyCreated = rows.find((r) => r.event_type === 'companyCreated' && JSON.parse(r.context).companyId === created.json().id);
      assert.ok(companyCreated, 'companyCreated entry');
      assert.deepEqual(pick(companyCreated), { source: 'platform', actorId: user.id, actorType: 'internalUser', actorRole: 'staff', apiKeyRef: app.apiKeyId, companyId: null });
      assert.equal(companyCreated.user_agent, 'app/1.0');
      const custom = rows.filter((r) => r.event_type === 'customEvent').map(pick);
      assert.deepEqual(
        custom.sort((a, b) => String(a.actorType).localeCompare(String(b.actorType))),
        [
          { source: 'platform', actorId: client.id, actorType: 'clientUser', actorRole: null, apiKeyRef: app.apiKeyId, companyId: company.id },
          { source: 'platform', actorId: null, actorType: null, actorRole: null, apiKeyRef: app.apiKeyId, companyId: null },
        ].sort((a, b) => String(a.actorType).localeCompare(String(b.actorType))),
      );
    });
  });
}

for (const backend of BACKENDS) {
  describe(`portal sessions (contract §7) [${backend}]`, () => {
    test('sessions create --json prints {token, tokenId, expiresAt}; the session works; sessions revoke ends it', async (t) => {
      const url = await freshDatabaseUrl(t, backend, { sqliteFile: true });
      const ws = oneJson((await portal(url, 'workspaces', 'create', '--name', 'Acme', '--json')).stdout);
      const appKey = oneJson((await portal(url, 'keys', 'create', '--workspace', ws.workspaceId, '--app', APP_ID, '--json')).stdout);
      const user = oneJson((await portal(url, 'internal-users', 'create', '--workspace', ws.workspaceId, '--email', 'a@b.test', '--given-name', 'A', '--family-name', 'B', '--json')).stdout);

      const before = Math.floor(Date.now() / 1000);
      const created = await portal(url, 'sessions', 'create', '--workspace', ws.workspaceId, '--api-key', appKey.apiKey, '--internal-user', user.id, '--json');
      assert.equal(created.code, 0);
      const s = oneJson(created.stdout);
      assert.deepEqual(Object.keys(s).sort(), ['expiresAt', 'token', 'tokenId']);
      assert.ok(s.expiresAt >= before + 86_400 && s.expiresAt <= Math.floor(Date.now() / 1000) + 86_400);
      assert.deepEqual(sdkDecrypt(appKey.apiKey, s.token), { workspaceId: ws.workspaceId, internalUserId: user.id, tokenId: s.tokenId });

      const app = await buildApp(loadConfig({ DATABASE_URL: url, LOG_LEVEL: 'silent' }));
      t.after(() => app.close());
      const me = () => app.inject({ method: 'GET', url: '/v1/me', headers: { 'x-api-key': sessionKey(ws.workspaceId, appKey.apiKey, s.tokenId) } });
      assert.equal((await me()).json().id, user.id);

      const revoked = await portal(url, 'sessions', 'revoke', '--workspace', ws.workspaceId, '--token-id', s.tokenId, '--json');
      assert.equal(revoked.code, 0);
      assert.deepEqual(oneJson(revoked.stdout), { tokenId: s.tokenId, revoked: true });
      assert.equal((await me()).statusCode, 401);
      const again = await portal(url, 'sessions', 'revoke', '--workspace', ws.workspaceId, '--token-id', s.tokenId, '--json');
      assert.deepEqual([again.code, oneJson(again.stdout)], [1, { error: { code: 'not_found', message: 'Session not found.' } }]);

      const both = await portal(url, 'sessions', 'create', '--workspace', ws.workspaceId, '--api-key', appKey.apiKey, '--internal-user', user.id, '--client', user.id, '--json');
      assert.deepEqual([both.code, oneJson(both.stdout)], [2, { error: { code: 'usage', message: 'give exactly one of --client and --internal-user' } }]);
      const wsKey = await portal(url, 'sessions', 'create', '--workspace', ws.workspaceId, '--api-key', ws.apiKey, '--internal-user', user.id, '--json');
      assert.equal(wsKey.code, 1);
      assert.equal(oneJson(wsKey.stdout).error.code, 'bad_request');
    });
  });
}
