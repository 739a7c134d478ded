// Security issue 20, point 1: a stored Idempotency-Key answer is replayed only to the credential that made it
// (an API key; one bearer token; a session's end user through its app key), and is stored sealed under that
// credential's secret, so an answer carrying a secret (a bearer token, an invite link) is not in the database in clear.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { mintBearerToken, sessionKeyFor } from './helpers/factories.js';
import { BACKENDS, type Backend, adminHarness } from './helpers/harness.js';
import {
  type Operation,
  PRINCIPALS,
  type PrincipalName,
  REFUSED,
  openapiDocument,
  operationsOf,
  principalWorld,
  sampleOf,
} from './helpers/principal-world.js';

const replayed = (res: LightMyRequestResponse) => res.headers['idempotent-replayed'];

/** Refused before the key is claimed (permissions, validation): nothing kept, a retry runs afresh. */
const keepsNothing = (res: LightMyRequestResponse) =>
  res.statusCode === 400 || Object.values(REFUSED).some((refusal) => JSON.stringify(refusal) === res.body);

/** The idempotency plugin's own refusals: a principal's first use of a key must never meet another's claim. */
const KEY_TAKEN = ['idempotency_key_in_use', 'idempotency_key_reused'];

async function setUp(t: Parameters<typeof adminHarness>[0], backend: Backend) {
  const h = await adminHarness(t, backend);
  return { h, w: await principalWorld(h) };
}

/** Walks one POST /v1 operation: every principal sends the same request with the same key, then repeats it. */
async function walkPost(w: Awaited<ReturnType<typeof principalWorld>>, op: Operation) {
  const key = `walk-${randomUUID()}`;
  const url = op.path.replace(/\{id\}/g, w.ids[op.path.split('/')[2]] ?? randomUUID()).replace(/\{[^}]+\}/g, () => randomUUID());
  const body = op.body === undefined ? undefined : sampleOf(op.body);
  const request: InjectOptions = {
    method: 'POST',
    url,
    headers: { 'idempotency-key': key },
    ...(body !== undefined ? { payload: body as object } : {}),
  };
  const first = new Map<PrincipalName, LightMyRequestResponse>();
  for (const principal of PRINCIPALS) {
    const res = await w.call(principal, request);
    const answer = `POST ${op.path} as ${principal} (after ${first.size} others used the key): ${res.statusCode} ${res.body}`;
    assert.equal(replayed(res), undefined, `${answer}: replayed another principal's answer`);
    assert.ok(!KEY_TAKEN.includes(res.json?.()?.code), `${answer}: met another principal's key`);
    first.set(principal, res);
  }
  // Each principal's own retry is its own answer again (a request refused before the claim runs afresh): so the
  // key was kept, per principal, and the walk above could have caught a shared one.
  for (const principal of PRINCIPALS) {
    const kept = first.get(principal) as LightMyRequestResponse;
    if (keepsNothing(kept)) continue;
    const res = await w.call(principal, request);
    const answer = `POST ${op.path} retried as ${principal}: ${res.statusCode} ${res.body}`;
    assert.equal(replayed(res), 'true', answer);
    assert.deepEqual([res.statusCode, res.body], [kept.statusCode, kept.body], answer);
  }
}

for (const backend of BACKENDS) {
  describe(`Idempotency-Key answers belong to the credential that made them [${backend}]`, () => {
    test("a limited staff session repeating an app key's POST /v1/token gets its own 403, never the app's token", async (t) => {
      const { h, w } = await setUp(t, backend);
      const mint = (principal: PrincipalName) =>
        w.call(principal, { method: 'POST', url: '/v1/token', headers: { 'idempotency-key': 'mint-1' } });
      const minted = await mint('app key');
      assert.equal(minted.statusCode, 200, minted.body);
      const stolen = await mint('limited staff session');
      assert.equal(stolen.statusCode, 403, stolen.body);
      assert.equal(replayed(stolen), undefined);
      assert.deepEqual(stolen.json(), {
        code: 'forbidden',
        message: 'Tokens are minted with an app API key in X-API-KEY, not with a token or a session.',
        data: null,
      });
      // The session cannot read every client with a token it never got: its own view stays limited.
      const clients = await w.call('limited staff session', { method: 'GET', url: '/v1/clients' });
      assert.deepEqual(clients.json().data, []);
      const again = await mint('app key');
      assert.deepEqual([again.statusCode, replayed(again), again.body], [200, 'true', minted.body], 'its own caller still gets it');
      // The database holds no token in clear.
      const stored = await h.app.ctx.db.selectFrom('idempotency_keys').select(['scope', 'sealed_body']).execute();
      assert.equal(stored.length, 2);
      for (const row of stored)
        assert.ok(!row.sealed_body?.includes(minted.json().token.slice(4)), `${row.scope} holds the token in clear`);
    });

    test("an admin's POST /v1/clients?sendInvite=true repeated by a limited staff session never hands over the invite link", async (t) => {
      const { h, w } = await setUp(t, backend);
      const invite = (principal: PrincipalName, key: string) =>
        w.call(principal, {
          method: 'POST',
          url: '/v1/clients?sendInvite=true',
          headers: { 'idempotency-key': key },
          payload: { email: 'invited@walk.test', givenName: 'In', familyName: 'Vited', companyId: w.company.id },
        });
      const created = await invite('admin session', 'invite-1');
      assert.equal(created.statusCode, 200, created.body);
      const inviteUrl = created.json().inviteUrl as string;
      assert.match(inviteUrl, /^https?:\/\//);
      const stolen = await invite('limited staff session', 'invite-1');
      const fresh = await invite('limited staff session', 'invite-2');
      assert.equal(replayed(stolen), undefined);
      assert.deepEqual([stolen.statusCode, stolen.json()], [fresh.statusCode, fresh.json()], 'the same answer as with a key never used');
      assert.ok(!stolen.body.includes(inviteUrl));
      const again = await invite('admin session', 'invite-1');
      assert.deepEqual([again.statusCode, replayed(again), again.body], [200, 'true', created.body]);
      const stored = await h.app.ctx.db.selectFrom('idempotency_keys').select('sealed_body').execute();
      for (const row of stored) assert.ok(!row.sealed_body?.includes('inviteUrl'), 'answers are stored sealed, not in clear');
    });

    test("two bearer tokens of one key keep their own answers; a session's end user finds its answers with a new session token", async (t) => {
      const { h, w } = await setUp(t, backend);
      const tokens = await Promise.all([mintBearerToken(h, w.app.apiKey), mintBearerToken(h, w.app.apiKey)]);
      const post = (headers: Record<string, string>) =>
        h.app.inject({
          method: 'POST',
          url: '/v1/companies',
          headers: { 'idempotency-key': 'same', ...headers },
          payload: { name: 'Per token' },
        });
      const one = await post({ authorization: `Bearer ${tokens[0].json().token}` });
      const two = await post({ authorization: `Bearer ${tokens[1].json().token}` });
      assert.equal(one.statusCode, 200, one.body);
      assert.deepEqual([two.statusCode, replayed(two), two.json().code], [409, undefined, 'conflict'], 'ran: the name is taken');

      const session = () => sessionKeyFor(h, w.ws.workspaceId, { apiKey: w.app.apiKey, internalUserId: w.admin.id });
      const [first, second] = [await session(), await session()];
      assert.notEqual(first, second);
      const asUser = (apiKey: string) =>
        h.as(apiKey, { method: 'POST', url: '/v1/companies', headers: { 'idempotency-key': 'user-key' }, payload: { name: 'Per user' } });
      const made = await asUser(first);
      const retried = await asUser(second);
      assert.equal(made.statusCode, 200, made.body);
      assert.deepEqual([retried.statusCode, replayed(retried), retried.body], [200, 'true', made.body]);
    });

    test('every POST of the API, sent by every kind of principal with one Idempotency-Key: no replay crosses principals', async (t) => {
      const { h, w } = await setUp(t, backend);
      const posts = operationsOf(await openapiDocument(h)).filter((op) => op.method === 'POST' && op.path.startsWith('/v1/'));
      assert.ok(posts.length >= 10, `the walk covers the API's POSTs: ${posts.length}`);
      for (const op of posts) await t.test(`POST ${op.path}`, () => walkPost(w, op));
    });
  });
}
