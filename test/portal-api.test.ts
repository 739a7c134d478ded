// Issue 43, point 1: a person signed in to the portal is a caller of the /v1 API, with its cookie, under its
// workspace's portal (/portal/{workspaceId}/v1/…). It gets exactly what an app's session of the same person gets; a
// change without the cross-site header (or from another origin) is refused on every route; the cookie is no
// credential anywhere else, and a key is none there.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import type { InjectOptions } from 'fastify';
import { auditEntries } from './helpers/factories.js';
import { BACKENDS, adminHarness } from './helpers/harness.js';
import { PORTAL_PERSONS, REFUSED, type World, openapiDocument, operationsOf, principalWorld } from './helpers/principal-world.js';

/** The URL a walk calls for an operation: this workspace's object for `{id}`, a list's required query. */
function urlOf(w: World, op: { method: string; path: string }): string {
  const resource = op.path.split('/')[2];
  const sample = w.queries[`${op.method} ${op.path}`];
  const path = op.path.replace(/\{id\}/g, w.ids[resource] ?? randomUUID()).replace(/\{[^}]+\}/g, () => randomUUID());
  return path + (sample ? `?${sample.query}` : '');
}

const NOT_SIGNED_IN = { code: 'unauthorized', message: 'Not signed in, or the session has ended: sign in again.', data: null };
const NO_HEADER = {
  code: 'forbidden',
  message: 'Send X-Portal-Request: 1 with every request that changes something (it keeps other sites from sending it).',
  data: null,
};
const CROSS_ORIGIN = { code: 'forbidden', message: 'Cross-origin requests are refused.', data: null };

for (const backend of BACKENDS) {
  describe(`a person signed in to the portal calls /v1 with its cookie [${backend}]`, () => {
    test('over every GET of the OpenAPI document, each person gets exactly what its app session gets', async (t) => {
      const h = await adminHarness(t, backend);
      const w = await principalWorld(h);
      const gets = operationsOf(await openapiDocument(h)).filter((op) => op.method === 'GET' && op.path.startsWith('/v1/'));
      assert.ok(gets.length >= 40, `the walk covers the API's reads: ${gets.length}`);
      let compared = 0;
      for (const op of gets) {
        // GET /v1/me describes the credential itself (an app session names its key and token): below.
        if (op.path === '/v1/me') continue;
        const url = urlOf(w, op);
        for (const [person, session] of Object.entries(PORTAL_PERSONS)) {
          const [byCookie, bySession] = await Promise.all([
            w.call(person as keyof typeof PORTAL_PERSONS, { method: 'GET', url }),
            w.call(session, { method: 'GET', url }),
          ]);
          const label = `GET ${url} as ${person} and as ${session}`;
          const hiddenFromClients = session === 'client session' && op.policy.clientSession === 'none';
          if (!op.policy.portal && !hiddenFromClients) {
            // An app's operation (its installs' notification settings, its own resources): the person is refused.
            assert.deepEqual([byCookie.statusCode, byCookie.json()], [403, REFUSED.appsOnly], label);
            continue;
          }
          assert.equal(byCookie.statusCode, bySession.statusCode, `${label}: ${byCookie.body} / ${bySession.body}`);
          assert.equal(byCookie.headers['content-type'], bySession.headers['content-type'], label);
          assert.equal(byCookie.body, bySession.body, label);
          compared += 1;
        }
      }
      assert.ok(compared >= 160, `${compared} answers compared`);
      // The lists a client's portal shows are there, and its own: its invoices, message channels, file channels.
      for (const url of ['/v1/invoices', '/v1/message-channels', '/v1/channels/files', `/v1/files?channelId=${w.ids.channels}`]) {
        const res = await w.call('portal client', { method: 'GET', url });
        assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
      }
      const me = await w.call('portal client', { method: 'GET', url: '/v1/me' });
      assert.deepEqual(me.json(), {
        object: 'me',
        workspaceId: w.ws.workspaceId,
        type: 'client',
        id: w.client.id,
        companyId: w.company.id,
      });
    });

    test('the cookie’s rules, on one world: the cross-site rule, what is recorded, where the cookie is no credential', async (t) => {
      const h = await adminHarness(t, backend);
      const w = await principalWorld(h);
      await t.test(
        'a change without X-Portal-Request, or from another origin, is refused on every route before anything is read or written',
        async () => {
          const browser = w.browsers['portal client'];
          const writes = operationsOf(await openapiDocument(h)).filter((op) => op.method !== 'GET' && op.path.startsWith('/v1/'));
          assert.ok(writes.length >= 50, `the walk covers the API's changes: ${writes.length}`);
          const before = (await auditEntries(h, w.ws.workspaceId)).length;
          for (const op of writes) {
            const options = {
              method: op.method as InjectOptions['method'],
              url: `/portal/${w.ws.workspaceId}${urlOf(w, op)}`,
              payload: {},
            };
            const cookie = `portal_session=${browser.cookie}`;
            const bare = await h.app.inject({ ...options, headers: { cookie } });
            assert.deepEqual([bare.statusCode, bare.json()], [403, NO_HEADER], `${op.method} ${op.path} without the header`);
            const foreign = await h.app.inject({
              ...options,
              headers: { cookie, 'x-portal-request': '1', origin: 'https://attacker.example' },
            });
            assert.deepEqual([foreign.statusCode, foreign.json()], [403, CROSS_ORIGIN], `${op.method} ${op.path} from another origin`);
          }
          assert.equal((await auditEntries(h, w.ws.workspaceId)).length, before, 'nothing was written');
          // The same origin (the one the page was served from) passes.
          const own = await browser.api('POST', '/messages', {}, { origin: 'http://localhost:80' });
          assert.equal(own.statusCode, 400, own.body);
        },
      );
      await t.test(
        'what a person changes is recorded as that person, from the web, with no key; the same idempotency and limits as any caller',
        async () => {
          const browser = w.browsers['portal client'];
          const send = () =>
            browser.api(
              'POST',
              '/messages',
              { channelId: w.ids['message-channels'], text: 'Hello from the portal' },
              { 'idempotency-key': 'once' },
            );
          const [first, again] = [await send(), await send()];
          assert.equal(first.statusCode, 200, first.body);
          assert.deepEqual([again.statusCode, again.body, again.headers['idempotent-replayed']], [200, first.body, 'true']);
          assert.equal(first.json().senderId, w.client.id);
          assert.ok(first.headers['x-ratelimit-remaining'] !== undefined, 'the burst limit counts it');
          const entries = (await auditEntries(h, w.ws.workspaceId)).filter((e) => e.event_type === 'messageSent');
          assert.equal(entries.length, 1);
          assert.deepEqual(
            [entries[0].source, entries[0].actor_type, entries[0].actor_id, entries[0].api_key_ref],
            ['web', 'clientUser', w.client.id, null],
          );
          // A person sends only as itself.
          const asOther = await browser.api('POST', '/messages', {
            channelId: w.ids['message-channels'],
            text: 'Not me',
            senderId: w.admin.id,
          });
          assert.equal(asOther.statusCode, 403, asOther.body);
        },
      );
      await t.test(
        'the cookie is no credential outside its portal, a key none inside it; another workspace’s portal does not know it',
        async () => {
          const browser = w.browsers['portal client'];
          const cookie = `portal_session=${browser.cookie}`;
          const plain = await h.app.inject({ method: 'GET', url: '/v1/invoices', headers: { cookie } });
          assert.equal(plain.statusCode, 401, plain.body);
          assert.equal(plain.json().message, 'Missing credentials: send your API key in the X-API-KEY header.');
          const keyInPortal = await h.app.inject({
            method: 'GET',
            url: `/portal/${w.ws.workspaceId}/v1/invoices`,
            headers: { 'x-api-key': w.ws.apiKey },
          });
          assert.deepEqual([keyInPortal.statusCode, keyInPortal.json()], [401, NOT_SIGNED_IN]);
          const elsewhere = await h.app.inject({ method: 'GET', url: `/portal/${randomUUID()}/v1/invoices`, headers: { cookie } });
          const otherPortal = await h.app.inject({
            method: 'GET',
            url: `/portal/${(await h.workspace('Third')).workspaceId}/v1/invoices`,
            headers: { cookie },
          });
          assert.deepEqual([elsewhere.statusCode, elsewhere.json()], [401, NOT_SIGNED_IN], 'no such workspace');
          assert.deepEqual([otherPortal.statusCode, otherPortal.json()], [401, NOT_SIGNED_IN], 'another workspace');
          // Upper-case workspace ids name the same portal.
          const upper = await h.app.inject({
            method: 'GET',
            url: `/portal/${w.ws.workspaceId.toUpperCase()}/v1/invoices`,
            headers: { cookie },
          });
          assert.equal(upper.statusCode, 200, upper.body);
          // Signing out ends it at once.
          assert.equal((await browser.call('DELETE', '/session')).statusCode, 204);
          const after = await h.app.inject({ method: 'GET', url: `/portal/${w.ws.workspaceId}/v1/invoices`, headers: { cookie } });
          assert.deepEqual([after.statusCode, after.json()], [401, NOT_SIGNED_IN], 'signed out');
        },
      );
    });
  });
}
