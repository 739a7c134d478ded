import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { heldWithin } from '../../../../test/helpers/eventually.js';
import { createClient, createCompany, populatedWorkspace, sessionKeyFor, limitedUserSession } from '../../../../test/helpers/factories.js';
import { BACKENDS, type Harness, NOON, adminHarness } from '../../../../test/helpers/harness.js';
import { okJson } from '../../../../test/helpers/world.js';

const at = (ms: number) => new Date(ms).toISOString();
/**
 * An entry recorded with a workspace API key: no actor, automation, actor company or previous attributes,
 * so those are left out, not null (absent is absent, issue 23).
 */
const API_KEY_ENTRY_KEYS = [
  'context',
  'createdAt',
  'creatorId',
  'data',
  'eventDescription',
  'eventType',
  'id',
  'identityId',
  'ip',
  'object',
  'ref',
  'source',
  'updatedAt',
  'userAgent',
];

async function world(h: Harness) {
  const w = await populatedWorkspace(h);
  const list = async (query = '', key = w.ws.apiKey) =>
    okJson(await h.as(key, { method: 'GET', url: `/v1/audit-logs${query}` })).data as Record<string, any>[];
  const record = (payload: object, key = w.ws.apiKey) =>
    h.as(key, { method: 'POST', url: '/v1/audit-logs', payload, headers: { 'user-agent': 'audit-test/1' }, remoteAddress: '203.0.113.7' });
  return { ...w, list, record };
}

for (const backend of BACKENDS) {
  describe(`audit log API (contract §3) [${backend}]`, () => {
    test('GET: newest first, the answered fields only (internal ones never), every filter; a bad filter is a 400', async (t) => {
      const h = await adminHarness(t, backend);
      const { ws, client, company, list } = await world(h);
      const entries = await list();
      assert.deepEqual(
        entries.map((e) => e.eventType).sort(),
        ['apiKeyCreated', 'apiKeyCreated', 'clientCreated', 'companyCreated', 'internalUserCreated'],
        'everything the set-up did (at one instant: their order is by id)',
      );
      const created = entries.find((e) => e.eventType === 'clientCreated') as Record<string, any>;
      assert.deepEqual(
        Object.keys(created).sort(),
        API_KEY_ENTRY_KEYS,
        'no actorRole, actorAgentId, apiKeyRef, isSuperAdminTriggered; no actorId, actorType, automationId, companyId, previousAttributes',
      );
      assert.equal(created.object, 'auditLogEntry');
      assert.equal(created.ref, client.id);
      assert.deepEqual(JSON.parse(created.data), client, 'data: the client after the change');
      assert.equal(created.source, 'platform');
      assert.deepEqual(created.context, { clientId: client.id, companyId: company.id });

      h.clock.advance(60_000);
      await createCompany(h, ws.apiKey, { name: 'Later' });
      assert.deepEqual(
        (await list('?eventType=companyCreated')).map((e) => e.context.name),
        ['Later', company.name],
      );
      assert.deepEqual(
        (await list(`?createdAfter=${encodeURIComponent(at(NOON + 1))}`)).map((e) => e.context.name),
        ['Later'],
      );
      assert.equal((await list(`?createdBefore=${at(NOON + 60_000)}`)).length, 5, 'before: exclusive');
      assert.equal((await list('?createdAfter=2026-01-15T13:00:00.000%2B01:00')).length, 6, 'any offset: 12:00 UTC');
      assert.deepEqual(await list('?source=web'), []);
      assert.equal((await list('?source=system')).length, 3, 'the portal command (keys, internal user)');
      const bad = await h.as(ws.apiKey, { method: 'GET', url: '/v1/audit-logs?eventType=clientExploded' });
      assert.equal(bad.statusCode, 400);
      assert.equal(bad.json().data[0].path, 'query.eventType');
      const badTime = await h.as(ws.apiKey, { method: 'GET', url: '/v1/audit-logs?createdAfter=yesterday' });
      assert.deepEqual([badTime.statusCode, badTime.json().data[0].path], [400, 'query.createdAfter']);
    });

    test('who reads it: client sessions 404, a limited internal user its companies’ entries, other workspaces nothing', async (t) => {
      const h = await adminHarness(t, backend);
      const { ws, app, client, list } = await world(h);
      h.clock.advance(1000);
      const beta = await createCompany(h, ws.apiKey, { name: 'Beta' });
      h.clock.advance(1000);
      const bob = await createClient(h, ws.apiKey, { email: 'bob@beta.test', givenName: 'Bob', familyName: 'B', companyId: beta.id });
      const clientSession = await sessionKeyFor(h, ws.workspaceId, { apiKey: app.apiKey, clientId: client.id });
      const hidden = await h.as(clientSession, { method: 'GET', url: '/v1/audit-logs' });
      assert.deepEqual([hidden.statusCode, hidden.json().code], [404, 'not_found']);
      const { session: limitedSession } = await limitedUserSession(h, ws.workspaceId, app.apiKey, [beta.id], 'lim@acme.test');
      assert.deepEqual(
        (await list('', limitedSession)).map((e) => [e.eventType, e.ref]),
        [
          ['clientCreated', bob.id],
          ['companyCreated', beta.id],
        ],
      );
      const other = await h.workspace('Other');
      assert.deepEqual(
        (await list('', other.apiKey)).map((e) => e.eventType),
        ['apiKeyCreated'],
        'its own only',
      );
    });

    test('POST: a custom type is a customEvent; limits (100 and 500 characters, context required); ip and User-Agent recorded', async (t) => {
      const h = await adminHarness(t, backend);
      const { client, record } = await world(h);
      const custom = await record({ eventType: 'x'.repeat(100), eventDescription: 'd'.repeat(500), context: { a: 1 }, actorId: client.id });
      assert.equal(custom.statusCode, 200, custom.body);
      const entry = custom.json();
      assert.deepEqual(
        [entry.eventType, entry.context, entry.actorId, entry.actorType, entry.ip, entry.userAgent, entry.source],
        ['customEvent', { a: 1, customEventType: 'x'.repeat(100) }, client.id, 'clientUser', '203.0.113.7', 'audit-test/1', 'platform'],
      );
      assert.equal(entry.companyId, client.companyId, 'a client actor’s company');
      const problems = async (payload: object) => {
        const res = await record(payload);
        assert.equal(res.statusCode, 400, res.body);
        return res.json().data.map((p: { path: string }) => p.path);
      };
      assert.deepEqual(await problems({ eventType: 'x'.repeat(101), eventDescription: 'd', context: {} }), ['body.eventType']);
      assert.deepEqual(await problems({ eventType: 'e', eventDescription: 'd'.repeat(501), context: {} }), ['body.eventDescription']);
      assert.deepEqual(await problems({ eventType: 'e', eventDescription: 'd' }), ['body.context']);
      assert.deepEqual(await problems({ eventType: 'e', eventDescription: 'd', context: {}, actorId: 'nobody' }), ['body.actorId']);
    });

    test('sessions: a sessionStarted closes the open one with a synthetic sessionEnded at lastActivityAt; sessionEnded takes it as createdAt', async (t) => {
      const h = await adminHarness(t, backend);
      const { client, record, list } = await world(h);
      const session = (eventType: string, extra: object = {}) =>
        record({ eventType, eventDescription: eventType, context: {}, actorId: client.id, ...extra });
      assert.equal((await session('sessionStarted')).statusCode, 200);
      h.clock.advance(3_600_000);
      const future = await session('sessionEnded', { lastActivityAt: at(NOON + 3_600_001) });
      assert.deepEqual([future.statusCode, future.json().data], [400, [{ path: 'body.lastActivityAt', message: 'is in the future' }]]);
      const before = await session('sessionStarted', { lastActivityAt: at(NOON - 1) });
      assert.deepEqual(
        [before.statusCode, before.json().data],
        [400, [{ path: 'body.lastActivityAt', message: `is before the session started (${at(NOON)})` }]],
      );
      const restarted = await session('sessionStarted', { lastActivityAt: at(NOON + 600_000) });
      assert.equal(restarted.statusCode, 200, restarted.body);
      assert.equal(restarted.json().createdAt, at(NOON + 3_600_000));
      const synthetic = (await list('?eventType=sessionEnded'))[0];
      assert.deepEqual(
        [synthetic.createdAt, synthetic.source, synthetic.actorId, 'ip' in synthetic, synthetic.context.synthetic],
        [at(NOON + 600_000), 'system', client.id, false, true],
      );
      h.clock.advance(60_000);
      const ended = await session('sessionEnded', { lastActivityAt: at(NOON + 3_630_000) });
      assert.deepEqual([ended.statusCode, ended.json().createdAt, ended.json().source], [200, at(NOON + 3_630_000), 'platform']);
      assert.equal((await session('sessionStarted')).statusCode, 200, 'no open session: no synthetic end');
      assert.equal((await list('?eventType=sessionEnded')).length, 2);
      const anonymous = await record({ eventType: 'sessionStarted', eventDescription: 's', context: {} });
      assert.deepEqual(anonymous.json().data, [
        { path: 'body.actorId', message: 'is required for a session event when the caller is not a session' },
      ]);
    });

    test('personal data: blanked after PORTAL_AUDIT_PII_DAYS by the periodic job; deleting a client blanks its entries', async (t) => {
      const h = await adminHarness(t, backend, { env: { PORTAL_AUDIT_PII_DAYS: '30' }, auditPiiSweepMs: 20 });
      const { ws, client, record, list } = await world(h);
      const byClient = await record({ eventType: 'opened', eventDescription: 'o', context: {}, actorId: client.id });
      assert.equal(byClient.json().ip, '203.0.113.7');
      h.clock.advance(29 * 86_400_000);
      const recent = await record({ eventType: 'recent', eventDescription: 'r', context: {} });
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal((await list('?eventType=customEvent')).find((e) => e.id === byClient.json().id)?.ip, '203.0.113.7', '29 days: kept');
      h.clock.advance(2 * 86_400_000);
      const blanked = (entry: Record<string, unknown> | undefined) => entry !== undefined && !('ip' in entry) && !('userAgent' in entry);
      await heldWithin(5000, 'blanked after 30 days', async () => blanked((await list()).find((e) => e.id === byClient.json().id)));
      const entries = await list();
      assert.ok(blanked(entries.find((e) => e.id === byClient.json().id)), 'ip and userAgent left out once blanked');
      assert.equal(entries.find((e) => e.id === recent.json().id)?.ip, '203.0.113.7', 'the recent one kept');

      const fresh = await record({ eventType: 'again', eventDescription: 'a', context: {}, actorId: client.id });
      assert.equal(fresh.json().ip, '203.0.113.7');
      const deleted = await h.as(ws.apiKey, { method: 'DELETE', url: `/v1/clients/${client.id}` });
      assert.equal(deleted.statusCode, 200);
      assert.ok(blanked((await list()).find((e) => e.id === fresh.json().id)), 'the deleted client’s entries');
    });
  });
}
