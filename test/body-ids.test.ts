// Issue 43, point 2: an id a body or query names is one schema type (RefId, src/lib/schemas.ts), read in lower case by the
// validation (x-lowerCase, src/plugins/validation.ts): the services compare it with stored ids as it comes, no
// hand-written toLowerCase. An upper-case id works exactly as the lower-case one — and a session naming itself in upper
// case is itself (the actor rule, src/lib/caller.ts), not another user. Ids in paths follow their own rule
// (test/path-ids.test.ts).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { BACKENDS, adminHarness } from './helpers/harness.js';
import { principalWorld } from './helpers/principal-world.js';

/** The answer without what differs between two creations (its id and times). */
function comparable(response: LightMyRequestResponse) {
  const { id: _id, createdAt: _created, updatedAt: _updated, ...rest } = response.json();
  return { status: response.statusCode, body: rest };
}

for (const backend of BACKENDS) {
  describe(`ids in bodies and queries: any case, read in lower case [${backend}]`, () => {
    test('POST /v1/messages, GET /v1/messages and POST /v1/notifications answer an upper-case id as the lower-case one', async (t) => {
      const h = await adminHarness(t, backend);
      const w = await principalWorld(h);
      const channelId = w.ids['message-channels'];
      const upper = (id: string) => id.toUpperCase();
      assert.notEqual(upper(channelId), channelId);

      // A key names the sender: the channel and the sender in either case.
      const send = (channel: string, sender: string) =>
        w.call('workspace key', { method: 'POST', url: '/v1/messages', payload: { channelId: channel, senderId: sender, text: 'hi' } });
      const lower = await send(channelId, w.client.id);
      assert.equal(lower.statusCode, 200, lower.body);
      const upperSent = await send(upper(channelId), upper(w.client.id));
      assert.deepEqual(comparable(upperSent), comparable(lower));
      assert.deepEqual([upperSent.json().channelId, upperSent.json().senderId], [channelId, w.client.id]);

      // A session naming itself in upper case is itself; naming another user is the actor rule's 403, in any case.
      const asClient = (sender: string) =>
        w.call('client session', {
          method: 'POST',
          url: '/v1/messages',
          payload: { channelId: upper(channelId), senderId: sender, text: 'me' },
        });
      const itself = await asClient(upper(w.client.id));
      assert.equal(itself.statusCode, 200, itself.body);
      assert.equal(itself.json().senderId, w.client.id);
      const other = await w.call('admin session', {
        method: 'POST',
        url: '/v1/messages',
        payload: { channelId: upper(channelId), senderId: upper(w.client.id), text: 'as the client' },
      });
      assert.equal(other.statusCode, 403, other.body);
      assert.deepEqual(other.json(), {
        code: 'forbidden',
        message: 'body.senderId must be the caller’s own user (or left out): a person acts only as itself.',
        data: null,
      });

      // The list's query: the same page in either case.
      const list = (channel: string) => w.call('workspace key', { method: 'GET', url: `/v1/messages?channelId=${channel}` });
      const [lowerList, upperList] = [await list(channelId), await list(upper(channelId))];
      assert.equal(lowerList.statusCode, 200, lowerList.body);
      assert.equal(lowerList.json().data.length, 3);
      assert.deepEqual([upperList.statusCode, upperList.json()], [200, lowerList.json()]);

      // A notification: its sender and recipient in either case.
      const notify = (sender: string, recipient: string) =>
        w.call('workspace key', {
          method: 'POST',
          url: '/v1/notifications',
          payload: { senderId: sender, recipientClientId: recipient, deliveryTargets: { inProduct: { title: 'Hello' } } },
        });
      const lowerNotified = await notify(w.admin.id, w.client.id);
      assert.equal(lowerNotified.statusCode, 200, lowerNotified.body);
      const upperNotified = await notify(upper(w.admin.id), upper(w.client.id));
      assert.deepEqual(comparable(upperNotified), comparable(lowerNotified));
      assert.deepEqual(
        [upperNotified.json().senderId, upperNotified.json().recipientClientId, upperNotified.json().recipientCompanyId],
        [w.admin.id, w.client.id, w.company.id],
      );
      // The admin's own session names itself in upper case.
      const adminNotified = await w.call('admin session', {
        method: 'POST',
        url: '/v1/notifications',
        payload: { senderId: upper(w.admin.id), recipientClientId: upper(w.client.id), deliveryTargets: { inProduct: { title: 'Hello' } } },
      });
      assert.equal(adminNotified.statusCode, 200, adminNotified.body);
      assert.equal(adminNotified.json().senderId, w.admin.id);
    });
  });
}
