// End-user sessions (contract §2, §6, §7): tokens the official SDK decrypts, minted on the admin surface and by
// `portal sessions`; what a session may do, when it is refused, its limits and its audit actor.
import assert from 'node:assert/strict';
import { createDecipheriv, createHmac } from 'node:crypto';
import { describe, test } from 'node:test';
import { oneJson, portal } from '../../../../test/helpers/cli.js';
import { serve, stop } from '../../../../test/helpers/server.js';
import {
  APP_ID,
  OTHER_APP_ID,
  adminRequest,
  auditEntries,
  createTestInternalUser,
  mintSession,
  populatedWorkspace,
  revokeKey,
  sessionKey,
  sessionKeyFor,
} from '../../../../test/helpers/factories.js';
import { BACKENDS, NOON, adminHarness, freshDatabaseUrl } from '../../../../test/helpers/harness.js';
import { heldWithin } from '../../../../test/helpers/eventually.js';
import { auditProbeRoute } from '../../../../test/helpers/internals.js';
import { CONTRACT_LIMITS, remainingOf } from '../../../../test/helpers/limits.js';
import { buildApp } from '../../../app.js';
import { loadConfig } from '../../../config.js';
import { encryptSessionToken } from './sessions.crypto.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const UNAUTHORIZED = { code: 'unauthorized', message: 'Missing, unknown, revoked or expired credentials.', data: null };

/** The official Node SDK's decryption, re-implemented: AES-128-CBC, key = 16 bytes from the first 32 hex chars of HMAC-SHA256(apiKey, ''). */
function sdkDecrypt(apiKey: string, token: string): Record<string, unknown> {
  const key = Buffer.from(createHmac('sha256', apiKey).digest('hex').slice(0, 32), 'hex');
  const blob = Buffer.from(token, 'hex');
  const decipher = createDecipheriv('aes-128-cbc', key, blob.subarray(0, 16));
  return JSON.parse(Buffer.concat([decipher.update(blob.subarray(16)), decipher.final()]).toString('utf8'));
}

for (const backend of BACKENDS) {
  describe(`end-user sessions [${backend}]`, () => {
    test('a session token carries baseUrl = PORTAL_URL, where the SDK then sends the session’s calls', async (t) => {
      const h = await adminHarness(t, backend, { env: { PORTAL_URL: 'https://portal.example.test/' } });
      const { ws, app, user } = await populatedWorkspace(h);
      const minted = await mintSession(h, ws.workspaceId, { apiKey: app.apiKey, internalUserId: user.id });
      assert.equal(sdkDecrypt(app.apiKey, minted.token).baseUrl, 'https://portal.example.test', 'trailing slash dropped');
    });

    test('the admin surface mints tokens the official SDK decrypts; the session acts as that internal user or client', async (t) => {
      const h = await adminHarness(t, backend);
      const { ws, app, user, company, client } = await populatedWorkspace(h);

      const staff = await mintSession(h, ws.workspaceId, { apiKey: app.apiKey, internalUserId: user.id });
      assert.deepEqual(Object.keys(staff).sort(), ['expiresAt', 'token', 'tokenId']);
      assert.match(staff.tokenId, UUID);
      assert.equal(staff.expiresAt, NOON / 1000 + 86_400, 'default lifetime: 24 hours');
      assert.match(staff.token, /^([0-9a-f]{32})+$/, 'hex of IV and whole AES blocks');
      assert.deepEqual(sdkDecrypt(app.apiKey, staff.token), {
        workspaceId: ws.workspaceId,
        internalUserId: user.id,
        tokenId: staff.tokenId,
        baseUrl: 'http://127.0.0.1:8080',
      });

      const forClient = await mintSession(h, ws.workspaceId, { apiKey: app.apiKey, clientId: client.id });
      const payload = sdkDecrypt(app.apiKey, forClient.token);
      assert.deepEqual(payload, {
        workspaceId: ws.workspaceId,
        clientId: client.id,
        companyId: company.id,
        tokenId: forClient.tokenId,
        baseUrl: 'http://127.0.0.1:8080',
      });
      assert.ok(
        Object.values(payload).every((v) => typeof v === 'string'),
        'every value a string, as the SDK requires',
      );
      const explicit = await mintSession(h, ws.workspaceId, { apiKey: app.apiKey, clientId: client.id, companyId: company.id });
      assert.equal(sdkDecrypt(app.apiKey, explicit.token).companyId, company.id);
      assert.throws(() => sdkDecrypt(`${app.apiKey.slice(0, -1)}x`, staff.token), 'another key does not decrypt it');

      const meStaff = await h.as(sessionKey(ws.workspaceId, app.apiKey, staff.tokenId), { method: 'GET', url: '/v1/me' });
      assert.equal(meStaff.statusCode, 200);
      assert.deepEqual(meStaff.json(), {
        object: 'me',
        workspaceId: ws.workspaceId,
        type: 'internalUser',
        id: user.id,
        apiKeyId: app.apiKeyId,
        appId: APP_ID,
        tokenId: staff.tokenId,
      });
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
          sign_in_session_id: null,
        },
      );
    });

    test('a token is never read back: a forged one (any user, any baseUrl) acts as nobody; the tokenId acts as its recorded user only', async (t) => {
      // The token is AES-128-CBC without a MAC (the SDK's format): anyone holding the app key can make one. The
      // service never decrypts a token; a session is the tokenId's row, found with the app key's secret.
      const h = await adminHarness(t, backend);
      const { ws, app, user, client } = await populatedWorkspace(h);
      const s = await mintSession(h, ws.workspaceId, { apiKey: app.apiKey, internalUserId: user.id });
      const forged = encryptSessionToken(app.apiKey, {
        workspaceId: ws.workspaceId,
        clientId: client.id,
        tokenId: s.tokenId,
        baseUrl: 'https://attacker.example',
      });
      const me = (key: string) => h.as(key, { method: 'GET', url: '/v1/me' });
      const asToken = await me(sessionKey(ws.workspaceId, app.apiKey, forged));
      assert.deepEqual([asToken.statusCode, asToken.json()], [401, UNAUTHORIZED], 'a token in place of its tokenId');
      const asTokenId = await me(sessionKey(ws.workspaceId, app.apiKey, s.tokenId));
      assert.equal(asTokenId.statusCode, 200);
      assert.deepEqual([asTokenId.json().type, asTokenId.json().id], ['internalUser', user.id], 'the recorded user, not the forged client');
    });

    test('refused (401): tampered tokenId, foreign workspace, another key, expired, revoked, key revoked, user gone', async (t) => {
      const h = await adminHarness(t, backend);
      const { ws, app, user, client } = await populatedWorkspace(h);
      const other = await populatedWorkspace(h, 'Other');
      const sameWorkspaceApp = await h.appKey(ws.workspaceId, OTHER_APP_ID);
      const s = await mintSession(h, ws.workspaceId, { apiKey: app.apiKey, internalUserId: user.id });
      const me = (key: string) => h.as(key, { method: 'GET', url: '/v1/me' });
      assert.equal((await me(sessionKey(ws.workspaceId, app.apiKey, s.tokenId))).statusCode, 200);
      assert.equal((await me(sessionKey(ws.workspaceId, app.apiKey, s.tokenId.toUpperCase()))).statusCode, 200, 'ids are case-insensitive');

      const tampered = `${s.tokenId.slice(0, -1)}${s.tokenId.endsWith('0') ? '1' : '0'}`;
      const otherSession = await mintSession(h, other.ws.workspaceId, { apiKey: other.app.apiKey, internalUserId: other.user.id });
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
      const s2 = await mintSession(h, ws.workspaceId, { apiKey: app.apiKey, internalUserId: user.id });
      assert.equal((await adminRequest(h, 'DELETE', `/admin/workspaces/${ws.workspaceId}/sessions/${s2.tokenId}`)).statusCode, 200);
      assert.deepEqual((await me(sessionKey(ws.workspaceId, app.apiKey, s2.tokenId))).json(), UNAUTHORIZED);
      const again = await adminRequest(h, 'DELETE', `/admin/workspaces/${ws.workspaceId}/sessions/${s2.tokenId}`);
      assert.equal(again.statusCode, 404);
      assert.deepEqual(again.json(), { code: 'not_found', message: 'Session not found.', data: null });
      const s3 = await mintSession(h, ws.workspaceId, { apiKey: app.apiKey, internalUserId: user.id });
      assert.equal(
        (await adminRequest(h, 'DELETE', `/admin/workspaces/${other.ws.workspaceId}/sessions/${s3.tokenId}`)).statusCode,
        404,
        'another workspace cannot revoke it',
      );
      assert.equal((await me(sessionKey(ws.workspaceId, app.apiKey, s3.tokenId))).statusCode, 200);

      // The end user deleted: the client through the API, the internal user in the database.
      const c = await mintSession(h, ws.workspaceId, { apiKey: app.apiKey, clientId: client.id });
      assert.equal((await me(sessionKey(ws.workspaceId, app.apiKey, c.tokenId))).statusCode, 200);
      assert.equal((await h.as(ws.apiKey, { method: 'DELETE', url: `/v1/clients/${client.id}` })).statusCode, 200);
      assert.deepEqual((await me(sessionKey(ws.workspaceId, app.apiKey, c.tokenId))).json(), UNAUTHORIZED);
      await h.app.ctx.db.deleteFrom('internal_users').where('id', '=', user.id).execute();
      assert.deepEqual((await me(sessionKey(ws.workspaceId, app.apiKey, s3.tokenId))).json(), UNAUTHORIZED);

      // The key revoked.
      const o = await mintSession(h, other.ws.workspaceId, { apiKey: other.app.apiKey, clientId: other.client.id });
      await revokeKey(h, other.ws.workspaceId, other.app.apiKeyId);
      assert.deepEqual((await me(sessionKey(other.ws.workspaceId, other.app.apiKey, o.tokenId))).json(), UNAUTHORIZED);
    });

    test('a client session whose client left the session’s company is refused', async (t) => {
      const h = await adminHarness(t, backend);
      const { ws, app, client } = await populatedWorkspace(h);
      const s = await mintSession(h, ws.workspaceId, { apiKey: app.apiKey, clientId: client.id });
      const moved = await h.as(ws.apiKey, { method: 'POST', url: '/v1/companies', payload: { name: 'Elsewhere' } });
      assert.equal(
        (await h.as(ws.apiKey, { method: 'PATCH', url: `/v1/clients/${client.id}`, payload: { companyId: moved.json().id } })).statusCode,
        200,
      );
      assert.deepEqual(
        (await h.as(sessionKey(ws.workspaceId, app.apiKey, s.tokenId), { method: 'GET', url: '/v1/me' })).json(),
        UNAUTHORIZED,
      );
    });

    test('sessions: exempt from the daily quota, burst bucket of the end user (shared by its sessions, not by its app key)', async (t) => {
      const h = await adminHarness(t, backend, { env: CONTRACT_LIMITS });
      const ws = await h.workspace('Q', 3);
      const app = await h.appKey(ws.workspaceId, APP_ID);
      const user = await createTestInternalUser(h, ws.workspaceId, { email: 'u@q.test', givenName: 'U', familyName: 'Q' });
      const client = (
        await h.as(ws.apiKey, { method: 'POST', url: '/v1/clients', payload: { email: 'c@q.test', givenName: 'C', familyName: 'Q' } })
      ).json();
      // The client create counted one unit (the workspace key): 2 left.
      const s1 = await sessionKeyFor(h, ws.workspaceId, { apiKey: app.apiKey, internalUserId: user.id });
      const s2 = await sessionKeyFor(h, ws.workspaceId, { apiKey: app.apiKey, internalUserId: user.id });
      const sc = await sessionKeyFor(h, ws.workspaceId, { apiKey: app.apiKey, clientId: client.id });
      const get = (key: string) => h.as(key, { method: 'GET', url: '/v1/me' });

      assert.deepEqual(remainingOf(await get(s1)), ['19', '2'], 'a session request is not counted');
      assert.deepEqual(remainingOf(await get(s2)), ['18', '2'], 'another session of the same user shares its bucket');
      assert.deepEqual(remainingOf(await get(sc)), ['19', '2'], 'a client session has the client’s own bucket');
      assert.deepEqual(remainingOf(await get(app.apiKey)), ['19', '1'], 'the app key has its own bucket and is counted');
      assert.deepEqual(remainingOf(await get(app.apiKey)), ['18', '0']);
      const exhausted = await get(app.apiKey);
      assert.equal(exhausted.statusCode, 429);
      assert.equal(exhausted.body, '{"error":"quota limit reached"}');
      const stillServed = await get(s1);
      assert.equal(stillServed.statusCode, 200, 'sessions are served past the exhausted quota');
      assert.deepEqual(remainingOf(stillServed), ['17', '0']);
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

    test('audit entries of session writes carry the end user as actor', async (t) => {
      const h = await adminHarness(t, backend, {
        // Any route a client session may reach records what the request's actor is (so this holds whatever a client may write).
        extraV1Routes: auditProbeRoute,
      });
      const { ws, app, user, company, client } = await populatedWorkspace(h);
      const staff = await sessionKeyFor(h, ws.workspaceId, { apiKey: app.apiKey, internalUserId: user.id });
      const forClient = await sessionKeyFor(h, ws.workspaceId, { apiKey: app.apiKey, clientId: client.id });
      const created = await h.as(staff, {
        method: 'POST',
        url: '/v1/companies',
        payload: { name: 'Made by staff' },
        headers: { 'user-agent': 'app/1.0' },
      });
      assert.equal(created.statusCode, 200);
      assert.equal((await h.as(forClient, { method: 'GET', url: '/v1/test-audit' })).statusCode, 200);
      assert.equal((await h.as(app.apiKey, { method: 'GET', url: '/v1/test-audit' })).statusCode, 200);

      const pick = (r: {
        source: string;
        actor_id: string | null;
        actor_type: string | null;
        actor_role: string | null;
        api_key_ref: string | null;
        company_id: string | null;
      }) => ({
        source: r.source,
        actorId: r.actor_id,
        actorType: r.actor_type,
        actorRole: r.actor_role,
        apiKeyRef: r.api_key_ref,
        companyId: r.company_id,
      });
      const rows = (await auditEntries(h, ws.workspaceId)).filter((r) => r.source === 'platform');
      const companyCreated = rows.find((r) => r.event_type === 'companyCreated' && r.context.companyId === created.json().id);
      assert.ok(companyCreated, 'companyCreated entry');
      assert.deepEqual(pick(companyCreated), {
        source: 'platform',
        actorId: user.id,
        actorType: 'internalUser',
        actorRole: 'staff',
        apiKeyRef: app.apiKeyId,
        companyId: null,
      });
      assert.equal(companyCreated.user_agent, 'app/1.0');
      const custom = rows.filter((r) => r.event_type === 'customEvent').map(pick);
      assert.deepEqual(
        custom.sort((a, b) => String(a.actorType).localeCompare(String(b.actorType))),
        [
          {
            source: 'platform',
            actorId: client.id,
            actorType: 'clientUser',
            actorRole: null,
            apiKeyRef: app.apiKeyId,
            companyId: company.id,
          },
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
      const user = oneJson(
        (
          await portal(
            url,
            'internal-users',
            'create',
            '--workspace',
            ws.workspaceId,
            '--email',
            'a@b.test',
            '--given-name',
            'A',
            '--family-name',
            'B',
            '--json',
          )
        ).stdout,
      );

      const mintWith = (apiKey: string, ...extra: string[]) =>
        portal(
          url,
          'sessions',
          'create',
          '--workspace',
          ws.workspaceId,
          '--api-key',
          apiKey,
          '--internal-user',
          user.id,
          '--json',
          ...extra,
        );
      const mint = (...extra: string[]) => mintWith(appKey.apiKey, ...extra);
      // No server has started on this database: where tokens send the SDK is unknown, and this command's own
      // environment is not the server's.
      const unknown = await mint();
      assert.deepEqual(
        [unknown.code, oneJson(unknown.stdout).error.code, oneJson(unknown.stdout).error.message],
        [
          2,
          'usage',
          'no server has started on this database yet, so the address a token sends the SDK to is unknown: start the server (npm start), or give --base-url http://host:port',
        ],
      );
      assert.deepEqual(
        oneJson((await mint('--base-url', 'ftp://x')).stdout).error.message,
        '--base-url must be an http(s) URL (got "ftp://x")',
      );
      const before = Math.floor(Date.now() / 1000);
      const created = await mint('--base-url', 'http://127.0.0.1:8080/');
      assert.equal(created.code, 0);
      const s = oneJson(created.stdout);
      assert.deepEqual(Object.keys(s).sort(), ['expiresAt', 'token', 'tokenId']);
      assert.ok(s.expiresAt >= before + 86_400 && s.expiresAt <= Math.floor(Date.now() / 1000) + 86_400);
      assert.deepEqual(sdkDecrypt(appKey.apiKey, s.token), {
        workspaceId: ws.workspaceId,
        internalUserId: user.id,
        tokenId: s.tokenId,
        baseUrl: 'http://127.0.0.1:8080',
      });
      // A server started on this database records where it answers (PORTAL_URL, else where it listens): tokens go there.
      const server = await serve({ DATABASE_URL: url });
      t.after(() => stop(server.child));
      const recorded = oneJson((await mint()).stdout);
      assert.equal(sdkDecrypt(appKey.apiKey, recorded.token).baseUrl, server.base);
      await stop(server.child);

      const app = await buildApp(loadConfig({ DATABASE_URL: url, LOG_LEVEL: 'silent' }));
      t.after(() => app.close());
      const me = () =>
        app.inject({ method: 'GET', url: '/v1/me', headers: { 'x-api-key': sessionKey(ws.workspaceId, appKey.apiKey, s.tokenId) } });
      assert.equal((await me()).json().id, user.id);
      // Rule (issue 42, point 7): the operator's mints are recorded (sessionTokenMinted, source system), never the token.
      const minted = await app.ctx.db
        .selectFrom('audit_log')
        .select(['event_type', 'source', 'context'])
        .where('event_type', '=', 'sessionTokenMinted')
        .orderBy('created_at')
        .execute();
      assert.deepEqual(
        minted.map((e) => [e.source, JSON.parse(e.context).tokenId, JSON.parse(e.context).principalId]),
        [
          ['system', s.tokenId, user.id],
          ['system', recorded.tokenId, user.id],
        ],
      );
      assert.ok(!minted.some((e) => e.context.includes(s.token.slice(0, 32))), 'the token itself is not recorded');

      const revoked = await portal(url, 'sessions', 'revoke', '--workspace', ws.workspaceId, '--token-id', s.tokenId, '--json');
      assert.equal(revoked.code, 0);
      assert.deepEqual(oneJson(revoked.stdout), { tokenId: s.tokenId, revoked: true });
      // The command is another process: the server's credential cache sees it within a second.
      await heldWithin(1000, 'the revoked session is refused', async () => (await me()).statusCode === 401);
      const again = await portal(url, 'sessions', 'revoke', '--workspace', ws.workspaceId, '--token-id', s.tokenId, '--json');
      assert.deepEqual([again.code, oneJson(again.stdout)], [1, { error: { code: 'not_found', message: 'Session not found.' } }]);

      const both = await mint('--client', user.id);
      assert.deepEqual(
        [both.code, oneJson(both.stdout)],
        [2, { error: { code: 'usage', message: 'give exactly one of --client and --internal-user' } }],
      );
      const wsKey = await mintWith(ws.apiKey);
      assert.equal(wsKey.code, 1);
      assert.equal(oneJson(wsKey.stdout).error.code, 'bad_request');
    });
  });
}
