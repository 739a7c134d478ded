// Rule (issue 45, point 2): `GET /v1/message-channels?orderBy=lastMessageDate` lists the channels as an inbox: newest
// last message first, then the channels without a message, newest created first; with the list's filters and the
// caller's narrowing. A nextToken is a position in that order: a walk through the pages sees each channel once at
// most even while messages arrive, a channel that gets one moves to the first page; a token of one order is a 400 in
// the other. The default order (newest created first) is unchanged.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { limitedUserSession } from '../../../../test/helpers/factories.js';
import { BACKENDS, adminHarness } from '../../../../test/helpers/harness.js';
import { assertProblems } from '../../../../test/helpers/problems.js';
import { acmeAndBeta, okJson } from '../../../../test/helpers/world.js';

const INBOX = '/v1/message-channels?orderBy=lastMessageDate';

for (const backend of BACKENDS) {
  describe(`message channels in the inbox's order [${backend}]`, () => {
    async function world(t: Parameters<typeof adminHarness>[0]) {
      const h = await adminHarness(t, backend, { webhooks: false, subscriptionPollMs: false });
      const w = await acmeAndBeta(h);
      const cy = await w.betaClient('cy');
      const channel = async (name: string, body: object) => {
        h.clock.advance(1000);
        return { name, ...okJson(await w.call('POST', '/v1/message-channels', body), name) };
      };
      // Five channels, created one second apart: c1 … c5.
      const c1 = await channel('c1', { membershipType: 'individual', clientId: w.ada.id });
      const c2 = await channel('c2', { membershipType: 'company', companyId: w.beta.id });
      const c3 = await channel('c3', { membershipType: 'individual', clientId: w.bob.id });
      const c4 = await channel('c4', { membershipType: 'company', companyId: w.acme.id });
      const c5 = await channel('c5', { membershipType: 'individual', clientId: cy.id });
      const all = [c1, c2, c3, c4, c5];
      const send = async (to: { id: string }) => {
        h.clock.advance(1000);
        okJson(await w.call('POST', '/v1/messages', { channelId: to.id, text: 'hello', senderId: w.user.id }), 'send');
      };
      await send(c2);
      await send(c4);
      await send(c1);
      const names = (body: { data: { id: string }[] }) => body.data.map((c) => all.find((x) => x.id === c.id)?.name ?? c.id);
      const list = async (url: string, key = w.ws.apiKey) => okJson(await h.as(key, { method: 'GET', url }), url);
      return { ...w, h, cy, c1, c2, c3, c4, c5, send, names, list };
    }

    test('newest last message first, then the channels without one, newest created first; the default order unchanged', async (t) => {
      const { names, list } = await world(t);
      const inbox = await list(INBOX);
      assert.deepEqual(names(inbox), ['c1', 'c4', 'c2', 'c5', 'c3']);
      assert.deepEqual(
        inbox.data.map((c: { lastMessageDate?: string }) => c.lastMessageDate ?? null),
        ['2026-01-15T12:00:08.000Z', '2026-01-15T12:00:07.000Z', '2026-01-15T12:00:06.000Z', null, null],
      );
      assert.deepEqual(names(await list('/v1/message-channels')), ['c5', 'c4', 'c3', 'c2', 'c1'], 'the default: newest created');
      assert.deepEqual(names(await list('/v1/message-channels?orderBy=createdAt')), ['c5', 'c4', 'c3', 'c2', 'c1']);
      assert.deepEqual(names(await list(`${INBOX}&membershipType=individual`)), ['c1', 'c5', 'c3'], 'with a filter');
    });

    test('paged by position: each channel once in a walk while messages arrive; one that gets a message moves to the first page', async (t) => {
      const { h, ws, names, list, send, c4, c5 } = await world(t);
      const first = await list(`${INBOX}&limit=2`);
      assert.deepEqual(names(first), ['c1', 'c4']);
      await send(c4); // seen already: not again on the next page
      await send(c5); // not seen yet, below the position: moves above it
      const second = await list(`${INBOX}&limit=2&nextToken=${encodeURIComponent(first.nextToken)}`);
      assert.deepEqual(names(second), ['c2', 'c3'], 'nothing repeated; c5 has moved to the top');
      assert.equal(second.nextToken, undefined);
      assert.deepEqual(names(await list(INBOX)), ['c5', 'c4', 'c1', 'c2', 'c3'], 'a new walk finds it first');
      const wrongOrder = await h.as(ws.apiKey, {
        method: 'GET',
        url: `/v1/message-channels?limit=2&nextToken=${encodeURIComponent(first.nextToken)}`,
      });
      assertProblems(wrongOrder, [{ path: 'query.nextToken', message: 'is not a page token of this list' }]);
      const badOrder = await h.as(ws.apiKey, { method: 'GET', url: '/v1/message-channels?orderBy=updatedAt' });
      assertProblems(badOrder, ['query.orderBy']);
      const files = await h.as(ws.apiKey, { method: 'GET', url: '/v1/channels/files?orderBy=lastMessageDate' });
      assert.equal(files.statusCode, 400, 'file channels have no such order');
    });

    test('within what the caller sees: a client its own channels, a limited internal user its companies’, another workspace none', async (t) => {
      const { h, ws, app, ada, beta, session, names, list } = await world(t);
      assert.deepEqual(names(await list(INBOX, await session({ clientId: ada.id }))), ['c1', 'c4'], 'its channel and its company’s');
      const { session: limited } = await limitedUserSession(h, ws.workspaceId, app.apiKey, [beta.id], 'lim@acme.test');
      assert.deepEqual(names(await list(INBOX, limited)), ['c2', 'c5', 'c3'], 'Beta’s');
      const other = await h.workspace('Other');
      assert.deepEqual((await list(INBOX, other.apiKey)).data, []);
    });
  });
}
