// Rule (issue 33, point 7): a QA surface for app developers. A client or internal user is marked as a QA principal
// (qaPrincipalCreated) and stays an ordinary client or internal user to the API (listed like any other); only a QA
// principal gets an impersonation token there (qaImpersonationTokenMinted); removing the mark revokes its sessions
// (qaPrincipalDeleted); an app key gets a short-lived agent bearer token (qaAgentBearerMinted). Admin surface and
// `portal qa`; another workspace's people and principals are 404.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { oneJson, portal } from '../../../../test/helpers/cli.js';
import { adminRequest, auditEntries, sessionKey } from '../../../../test/helpers/factories.js';
import { BACKENDS, freshDatabaseUrl } from '../../../../test/helpers/harness.js';
import { assertProblems } from '../../../../test/helpers/problems.js';
import { NOON } from '../../../../test/helpers/types.js';
import { acmeAndBeta, moduleHarness } from '../../../../test/helpers/world.js';

const AT = new Date(NOON).toISOString();
const UNKNOWN = '00000000-0000-4000-8000-000000000000';

for (const backend of BACKENDS) {
  describe(`QA surface [${backend}]`, () => {
    async function world(t: Parameters<typeof moduleHarness>[0]) {
      const h = await moduleHarness(t, backend);
      const w = await acmeAndBeta(h);
      const other = await h.workspace('Other');
      const qa = (method: 'GET' | 'POST' | 'DELETE', path: string, body?: object, workspaceId = w.ws.workspaceId) =>
        adminRequest(h, method, `/admin/workspaces/${workspaceId}/qa${path}`, body);
      return { ...w, other, qa };
    }

    test('mark a client and an internal user: 201 with the person, listed, retrieved; still ordinary to the API', async (t) => {
      const { h, ws, ada, user, qa, call } = await world(t);
      const client = await qa('POST', '/principals', { clientId: ada.id });
      assert.equal(client.statusCode, 201, client.body);
      assert.deepEqual(client.json(), {
        id: ada.id,
        object: 'qaPrincipal',
        kind: 'client',
        email: 'ada@Acme.test',
        givenName: 'Ada',
        familyName: 'L',
        createdAt: AT,
      });
      h.clock.advance(1000);
      const staff = await qa('POST', '/principals', { internalUserId: user.id });
      assert.equal(staff.statusCode, 201, staff.body);
      assert.deepEqual(staff.json(), {
        id: user.id,
        object: 'qaPrincipal',
        kind: 'internalUser',
        email: 'staff@Acme.test',
        givenName: 'Sam',
        familyName: 'Staff',
        createdAt: new Date(NOON + 1000).toISOString(),
      });
      const list = await qa('GET', '/principals');
      assert.equal(list.statusCode, 200);
      assert.deepEqual(list.json(), { data: [staff.json(), client.json()] });
      assert.deepEqual((await qa('GET', `/principals/${ada.id}`)).json(), client.json());
      // Not hidden: the client is listed and read like any other.
      assert.equal((await call('GET', `/v1/clients/${ada.id}`)).statusCode, 200);
      assert.ok((await call('GET', '/v1/clients?limit=100')).json().data.some((c: { id: string }) => c.id === ada.id));
      const events = (await auditEntries(h, ws.workspaceId)).filter((e) => e.event_type.startsWith('qa'));
      assert.deepEqual(
        events.map((e) => [e.event_type, e.context, e.ref]),
        [
          ['qaPrincipalCreated', { principalId: ada.id, kind: 'client' }, ada.id],
          ['qaPrincipalCreated', { principalId: user.id, kind: 'internalUser' }, user.id],
        ],
      );
      const again = await qa('POST', '/principals', { clientId: ada.id });
      assert.equal(again.statusCode, 409);
      assert.deepEqual(again.json(), { code: 'conflict', message: 'ada@Acme.test is already a QA principal.', data: null });
    });

    test('bad input is a 400 naming the field; unknown and other workspaces’ people are 404', async (t) => {
      const { ada, bob, other, qa } = await world(t);
      assertProblems(await qa('POST', '/principals', {}), [
        { path: 'body.clientId', message: 'give exactly one of clientId and internalUserId' },
      ]);
      assertProblems(await qa('POST', '/principals', { clientId: ada.id, internalUserId: UNKNOWN }), ['body.clientId']);
      assertProblems(await qa('POST', '/principals', { clientId: 'nope' }), ['body.clientId']);
      assertProblems(await qa('POST', '/principals', { clientId: ada.id, role: 'x' }), ['body.role']);
      assertProblems(await qa('GET', '/principals?limit=0'), ['query.limit']);
      const unknown = await qa('POST', '/principals', { clientId: UNKNOWN });
      assert.equal(unknown.statusCode, 404);
      assert.deepEqual(unknown.json(), { code: 'not_found', message: 'Client not found.', data: null });
      // Ada, marked in Acme, is nobody in the other workspace: not markable, not found, not deletable, no token there.
      assert.equal((await qa('POST', '/principals', { clientId: ada.id })).statusCode, 201);
      assert.equal((await qa('POST', '/principals', { clientId: ada.id }, other.workspaceId)).statusCode, 404);
      assert.equal((await qa('GET', `/principals/${ada.id}`, undefined, other.workspaceId)).statusCode, 404);
      assert.equal((await qa('DELETE', `/principals/${ada.id}`, undefined, other.workspaceId)).statusCode, 404);
      assert.equal((await qa('POST', `/principals/${ada.id}/tokens`, { apiKey: other.apiKey }, other.workspaceId)).statusCode, 404);
      assert.deepEqual((await qa('GET', '/principals', undefined, other.workspaceId)).json(), { data: [] });
      // Bob is an ordinary client: no QA principal, no impersonation here; an upper-case id is an unknown one.
      assert.equal((await qa('GET', `/principals/${bob.id}`)).statusCode, 404);
      assert.equal((await qa('GET', `/principals/${ada.id.toUpperCase()}`)).statusCode, 404);
    });

    test('impersonation: a QA principal only; the token acts as it; qaImpersonationTokenMinted; removing it revokes its sessions', async (t) => {
      const { h, ws, app, ada, bob, acme, user, qa } = await world(t);
      await qa('POST', '/principals', { clientId: ada.id });
      await qa('POST', '/principals', { internalUserId: user.id });
      const notQa = await qa('POST', `/principals/${bob.id}/tokens`, { apiKey: app.apiKey });
      assert.equal(notQa.statusCode, 404);
      assert.deepEqual(notQa.json(), { code: 'not_found', message: 'QA principal not found.', data: null });
      assertProblems(await qa('POST', `/principals/${ada.id}/tokens`, {}), ['body.apiKey']);
      assertProblems(await qa('POST', `/principals/${ada.id}/tokens`, { apiKey: ws.apiKey }), ['apiKey']);
      assertProblems(await qa('POST', `/principals/${user.id}/tokens`, { apiKey: app.apiKey, companyId: acme.id }), ['companyId']);

      const minted = await qa('POST', `/principals/${ada.id}/tokens`, { apiKey: app.apiKey });
      assert.equal(minted.statusCode, 201, minted.body);
      const { principalId, token, tokenId, expiresAt } = minted.json();
      assert.deepEqual(Object.keys(minted.json()).sort(), ['expiresAt', 'principalId', 'token', 'tokenId']);
      assert.equal(principalId, ada.id);
      assert.match(token, /^[0-9a-f]+$/);
      assert.equal(expiresAt, Math.floor(NOON / 1000) + h.app.ctx.config.sessionLifetimeSeconds);
      const key = sessionKey(ws.workspaceId, app.apiKey, tokenId);
      const me = await h.as(key, { method: 'GET', url: '/v1/me' });
      assert.equal(me.statusCode, 200, me.body);
      assert.equal(me.json().id, ada.id);
      h.clock.advance(1000); // the entries in order of their time
      const staffToken = await qa('POST', `/principals/${user.id}/tokens`, { apiKey: app.apiKey });
      assert.equal(staffToken.statusCode, 201);
      const staffKey = sessionKey(ws.workspaceId, app.apiKey, staffToken.json().tokenId);
      assert.equal((await h.as(staffKey, { method: 'GET', url: '/v1/me' })).json().id, user.id);

      const minting = (await auditEntries(h, ws.workspaceId)).filter((e) => e.event_type === 'qaImpersonationTokenMinted');
      assert.deepEqual(
        minting.map((e) => e.context),
        [
          { principalId: ada.id, kind: 'client', tokenId, apiKeyId: app.apiKeyId, companyId: acme.id, expiresAt },
          {
            principalId: user.id,
            kind: 'internalUser',
            tokenId: staffToken.json().tokenId,
            apiKeyId: app.apiKeyId,
            expiresAt: staffToken.json().expiresAt,
          },
        ],
      );
      assert.ok(!JSON.stringify(minting).includes(token), 'the token is never recorded');

      const deleted = await qa('DELETE', `/principals/${ada.id}`);
      assert.equal(deleted.statusCode, 200);
      assert.deepEqual(deleted.json(), { id: ada.id, object: 'qaPrincipal', deleted: true });
      assert.equal((await h.as(key, { method: 'GET', url: '/v1/me' })).statusCode, 401, 'its session is revoked at once');
      assert.equal((await h.as(staffKey, { method: 'GET', url: '/v1/me' })).statusCode, 200, 'another principal’s session lives on');
      assert.equal((await qa('DELETE', `/principals/${ada.id}`)).statusCode, 404);
      assert.equal((await qa('POST', `/principals/${ada.id}/tokens`, { apiKey: app.apiKey })).statusCode, 404, 'no longer impersonable');
      assert.equal((await h.as(ws.apiKey, { method: 'GET', url: `/v1/clients/${ada.id}` })).statusCode, 200, 'the client stays');
      h.clock.advance(1000); // the entries in order of their time
      assert.equal((await qa('DELETE', `/principals/${user.id}`)).statusCode, 200);
      assert.equal((await h.as(staffKey, { method: 'GET', url: '/v1/me' })).statusCode, 401);
      const removed = (await auditEntries(h, ws.workspaceId)).filter((e) => e.event_type === 'qaPrincipalDeleted');
      assert.deepEqual(
        removed.map((e) => e.context),
        [
          { principalId: ada.id, kind: 'client' },
          { principalId: user.id, kind: 'internalUser' },
        ],
      );
    });

    // Rule (issue 42, point 7): every mint is recorded: an impersonation of a QA principal, anyone else's sessionTokenMinted.
    test('a session minted the general way (POST /admin/.../sessions, portal sessions create) for a QA principal is an impersonation; for anyone else sessionTokenMinted', async (t) => {
      const { h, ws, app, ada, bob, acme, beta, qa } = await world(t);
      await qa('POST', '/principals', { clientId: ada.id });
      const sessions = (body: object) => adminRequest(h, 'POST', `/admin/workspaces/${ws.workspaceId}/sessions`, body);
      const forBob = await sessions({ apiKey: app.apiKey, clientId: bob.id });
      assert.equal(forBob.statusCode, 200, forBob.body);
      const forAda = await sessions({ apiKey: app.apiKey, clientId: ada.id });
      assert.equal(forAda.statusCode, 200, forAda.body);
      const { tokenId, expiresAt } = forAda.json();
      const entries = await auditEntries(h, ws.workspaceId);
      const minting = entries.filter((e) => e.event_type === 'qaImpersonationTokenMinted');
      assert.deepEqual(
        minting.map((e) => e.context),
        [{ principalId: ada.id, kind: 'client', tokenId, apiKeyId: app.apiKeyId, companyId: acme.id, expiresAt }],
      );
      const minted = entries.filter((e) => e.event_type === 'sessionTokenMinted');
      const bobs = { tokenId: forBob.json().tokenId, expiresAt: forBob.json().expiresAt };
      assert.deepEqual(
        minted.map((e) => [e.source, e.actor_id, e.event_description, e.context]),
        [
          [
            'system',
            null,
            `Session token minted for ${bob.email}`,
            { principalId: bob.id, kind: 'client', ...bobs, apiKeyId: app.apiKeyId, companyId: beta.id },
          ],
        ],
      );
    });

    test('deleting the person removes its mark', async (t) => {
      const { ada, qa, call } = await world(t);
      await qa('POST', '/principals', { clientId: ada.id });
      assert.equal((await call('DELETE', `/v1/clients/${ada.id}`)).statusCode, 200);
      assert.deepEqual((await qa('GET', '/principals')).json(), { data: [] });
    });

    test('agent bearer token: an app key of the workspace, short-lived, qaAgentBearerMinted', async (t) => {
      const { h, ws, app, other, qa } = await world(t);
      assertProblems(await qa('POST', '/agent-tokens', {}), ['body.apiKeyId']);
      assertProblems(await qa('POST', '/agent-tokens', { apiKeyId: app.apiKeyId, lifetimeSeconds: 3601 }), ['body.lifetimeSeconds']);
      assertProblems(await qa('POST', '/agent-tokens', { apiKeyId: ws.apiKeyId }), [
        { path: 'body.apiKeyId', message: 'is not an active app API key of this workspace' },
      ]);
      assertProblems(await qa('POST', '/agent-tokens', { apiKeyId: app.apiKeyId }, other.workspaceId), ['body.apiKeyId']);
      const minted = await qa('POST', '/agent-tokens', { apiKeyId: app.apiKeyId, lifetimeSeconds: 120 });
      assert.equal(minted.statusCode, 201, minted.body);
      const body = minted.json();
      assert.match(body.token, /^ppt_[A-Za-z0-9_-]{43}$/);
      assert.deepEqual(
        { ...body, token: 'ppt' },
        { token: 'ppt', tokenExpiresAt: Math.floor(NOON / 1000) + 120, apiKeyId: app.apiKeyId, appId: await appIdOf(h, app.apiKeyId) },
      );
      const bearer = () => h.app.inject({ method: 'GET', url: '/v1/companies', headers: { authorization: `Bearer ${body.token}` } });
      assert.equal((await bearer()).statusCode, 200);
      h.clock.advance(120_000);
      assert.equal((await bearer()).statusCode, 401, 'refused once expired');
      const entries = (await auditEntries(h, ws.workspaceId)).filter((e) => e.event_type === 'qaAgentBearerMinted');
      assert.equal(entries.length, 1);
      assert.deepEqual(Object.keys(entries[0].context).sort(), ['apiKeyId', 'appId', 'bearerTokenId', 'tokenExpiresAt']);
      assert.equal(entries[0].context.tokenExpiresAt, body.tokenExpiresAt);
      assert.ok(!JSON.stringify(entries[0]).includes(body.token));
      const defaulted = await qa('POST', '/agent-tokens', { apiKeyId: app.apiKeyId });
      assert.equal(defaulted.json().tokenExpiresAt, Math.floor(h.clock.now() / 1000) + 900);
    });

    test('the portal command: qa create, list, token, agent-token, delete', async (t) => {
      const databaseUrl = await freshDatabaseUrl(t, backend, { sqliteFile: true });
      const ws = oneJson((await portal(databaseUrl, 'workspaces', 'create', '--name', 'Cli', '--json')).stdout);
      const user = oneJson(
        (
          await portal(
            databaseUrl,
            'internal-users',
            'create',
            '--workspace',
            ws.workspaceId,
            '--email',
            'q@a.test',
            '--given-name',
            'Q',
            '--family-name',
            'A',
            '--json',
          )
        ).stdout,
      );
      const key = oneJson(
        (
          await portal(
            databaseUrl,
            'keys',
            'create',
            '--workspace',
            ws.workspaceId,
            '--app',
            '7b0e4a7e-8c1f-4d55-9f3a-2d5c3a1e9b12',
            '--json',
          )
        ).stdout,
      );
      const qa = (...args: string[]) => portal(databaseUrl, 'qa', ...args, '--workspace', ws.workspaceId);
      const usage = await qa('create');
      assert.equal(usage.code, 2, usage.stderr);
      assert.match(usage.stderr, /give exactly one of --client and --internal-user/);
      const created = await qa('create', '--internal-user', user.id, '--json');
      assert.equal(created.code, 0, created.stderr);
      assert.deepEqual(
        { ...oneJson(created.stdout), createdAt: 'x' },
        { id: user.id, object: 'qaPrincipal', kind: 'internalUser', email: 'q@a.test', givenName: 'Q', familyName: 'A', createdAt: 'x' },
      );
      const listed = oneJson((await qa('list', '--json')).stdout);
      assert.deepEqual(
        listed.data.map((p: { id: string }) => p.id),
        [user.id],
      );
      const token = await qa('token', '--principal', user.id, '--api-key', key.apiKey, '--base-url', 'http://127.0.0.1:1', '--json');
      assert.equal(token.code, 0, token.stderr);
      assert.deepEqual(Object.keys(oneJson(token.stdout)).sort(), ['expiresAt', 'principalId', 'token', 'tokenId']);
      const agent = await qa('agent-token', '--api-key-id', key.apiKeyId, '--lifetime', '60', '--json');
      assert.equal(agent.code, 0, agent.stderr);
      assert.equal(oneJson(agent.stdout).apiKeyId, key.apiKeyId);
      const badLifetime = await qa('agent-token', '--api-key-id', key.apiKeyId, '--lifetime', '5');
      assert.notEqual(badLifetime.code, 0);
      assert.match(badLifetime.stderr, /lifetimeSeconds/);
      const gone = await qa('delete', '--principal', user.id, '--json');
      assert.deepEqual(oneJson(gone.stdout), { id: user.id, object: 'qaPrincipal', deleted: true });
      const missing = await qa('delete', '--principal', user.id);
      assert.notEqual(missing.code, 0);
      assert.match(missing.stderr, /QA principal not found/);
    });
  });
}

async function appIdOf(h: Awaited<ReturnType<typeof moduleHarness>>, apiKeyId: string) {
  const row = await h.app.ctx.db.selectFrom('api_keys').select('app_id').where('id', '=', apiKeyId).executeTakeFirstOrThrow();
  return row.app_id;
}
