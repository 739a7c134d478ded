// Rule (issue 33, point 6): a message channel can be deleted (DELETE /v1/message-channels/{id}), with its members and
// every message in it, in one transaction, recording messageChannelDeleted with the channel as it was. Keys, bearer
// tokens and admin sessions may; staff and client sessions get a 403; a channel the caller does not see (another
// workspace's, another company's for a limited admin) is a 404, and nothing is deleted.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createTestInternalUser, mintBearerToken, sessionKeyFor, withBearer } from '../../../../test/helpers/factories.js';
import { BACKENDS, type Backend } from '../../../../test/helpers/harness.js';
import { messageRowsOf } from '../../../../test/helpers/internals.js';
import { assertProblems } from '../../../../test/helpers/problems.js';
import { acmeAndBeta, moduleHarness, okJson } from '../../../../test/helpers/world.js';

/** Acme Co (ada), Beta (bob); an individual channel of ada's with two messages, a company channel of Beta's with one. */
async function world(t: Parameters<typeof moduleHarness>[0], backend: Backend) {
  const h = await moduleHarness(t, backend);
  const w = await acmeAndBeta(h);
  const channel = async (body: object) => okJson(await w.call('POST', '/v1/message-channels', body));
  const send = async (channelId: string, senderId: string, text: string) =>
    okJson(await w.call('POST', '/v1/messages', { channelId, senderId, text }));
  const adas = await channel({ membershipType: 'individual', clientId: w.ada.id });
  const betas = await channel({ membershipType: 'company', companyId: w.beta.id });
  const m1 = await send(adas.id, w.ada.id, 'Hello');
  h.clock.advance(1000);
  const m2 = await send(adas.id, w.user.id, 'Hi Ada');
  const kept = await send(betas.id, w.bob.id, 'Beta here');
  return { ...w, channel, send, adas, betas, messages: [m1, m2], kept };
}

const NOT_FOUND = { code: 'not_found', message: 'Message channel not found.', data: null };

for (const backend of BACKENDS) {
  describe(`message channels deleted (deleteMessageChannel) [${backend}]`, () => {
    test('the channel, its members and its messages go in one change; afterwards every way to it is a 404; messageChannelDeleted', async (t) => {
      const w = await world(t, backend);
      const before = okJson(await w.call('GET', `/v1/message-channels/${w.adas.id}`));
      const res = await w.call('DELETE', `/v1/message-channels/${w.adas.id}`);
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json(), { id: w.adas.id, object: 'messageChannel', deleted: true });

      const get = await w.call('GET', `/v1/message-channels/${w.adas.id}`);
      assert.deepEqual([get.statusCode, get.json()], [404, NOT_FOUND]);
      const list = await w.call('GET', `/v1/messages?channelId=${w.adas.id}`);
      assert.deepEqual([list.statusCode, list.json()], [404, NOT_FOUND]);
      assertProblems(await w.call('POST', '/v1/messages', { channelId: w.adas.id, senderId: w.ada.id, text: 'Anyone?' }), [
        { path: 'body.channelId', message: 'is not a message channel of this workspace' },
      ]);
      const again = await w.call('DELETE', `/v1/message-channels/${w.adas.id}`);
      assert.deepEqual([again.statusCode, again.json()], [404, NOT_FOUND]);
      assert.deepEqual(await messageRowsOf(w.h, w.adas.id), [], 'its messages are gone');
      assert.deepEqual(
        (await w.call('GET', '/v1/message-channels')).json().data.map((c: { id: string }) => c.id),
        [w.betas.id],
      );
      assert.deepEqual(
        (await w.call('GET', `/v1/messages?channelId=${w.betas.id}`)).json(),
        { data: [w.kept] },
        'another channel’s messages stay',
      );

      const [entry, ...others] = await w.audit('messageChannelDeleted');
      assert.equal(others.length, 0);
      assert.deepEqual(
        [entry.eventType, entry.eventDescription, entry.context, entry.ref],
        [
          'messageChannelDeleted',
          'individual message channel deleted, with 2 messages',
          { channelId: w.adas.id, membershipType: 'individual', companyId: w.acme.id, messageCount: 2 },
          w.adas.id,
        ],
      );
      assert.deepEqual(JSON.parse(entry.data), before, 'the entry carries the channel as it was');
      // A client's later reads of its channels are whole (its messageSent entries stay as history).
      const adaSession = await w.session({ clientId: w.ada.id });
      assert.deepEqual((await w.call('GET', '/v1/message-channels', undefined, adaSession)).json(), { data: [] });
      assert.equal((await w.audit('messageSent')).length, 3);
    });

    test('who may: keys, bearer tokens and admins; staff and client sessions 403; another workspace or company 404, nothing deleted', async (t) => {
      const w = await world(t, backend);
      const del = (id: string, key?: string) => w.call('DELETE', `/v1/message-channels/${id}`, undefined, key);
      const forbidden = async (key: string, message: string) => {
        const res = await del(w.adas.id, key);
        assert.deepEqual([res.statusCode, res.json()], [403, { code: 'forbidden', message, data: null }]);
      };
      await forbidden(await w.session({ clientId: w.ada.id }), 'A client session may not change this.');
      await forbidden(await w.session({ internalUserId: w.user.id }), 'Staff may not do this; an admin may.');

      const other = await w.h.workspace('Other');
      const foreign = await del(w.adas.id, other.apiKey);
      assert.deepEqual([foreign.statusCode, foreign.json()], [404, NOT_FOUND]);
      const foreignGet = await w.call('GET', `/v1/message-channels/${w.adas.id}`, undefined, other.apiKey);
      assert.deepEqual([foreignGet.statusCode, foreignGet.json()], [404, NOT_FOUND]);

      const limitedAdmin = await createTestInternalUser(w.h, w.ws.workspaceId, {
        email: 'lim@acme.test',
        givenName: 'Li',
        familyName: 'M',
        role: 'admin',
        companyAccessList: [w.beta.id],
      });
      const limited = await sessionKeyFor(w.h, w.ws.workspaceId, { apiKey: w.app.apiKey, internalUserId: limitedAdmin.id });
      const outOfReach = await del(w.adas.id, limited);
      assert.deepEqual([outOfReach.statusCode, outOfReach.json()], [404, NOT_FOUND]);
      assert.deepEqual((await messageRowsOf(w.h, w.adas.id)).length, 2, 'nothing deleted by the refusals');
      assert.deepEqual(okJson(await del(w.betas.id, limited)), { id: w.betas.id, object: 'messageChannel', deleted: true });

      const admin = await createTestInternalUser(w.h, w.ws.workspaceId, {
        email: 'boss@acme.test',
        givenName: 'Bo',
        familyName: 'S',
        role: 'admin',
      });
      const adminSession = await sessionKeyFor(w.h, w.ws.workspaceId, { apiKey: w.app.apiKey, internalUserId: admin.id });
      const group = await w.channel({ membershipType: 'group', memberIds: [w.bob.id] });
      assert.deepEqual(okJson(await del(group.id, adminSession)), { id: group.id, object: 'messageChannel', deleted: true });

      const token = okJson(await mintBearerToken(w.h, w.app.apiKey)).token;
      assert.equal(typeof token, 'string');
      const byToken = await withBearer(w.h, token, 'DELETE', `/v1/message-channels/${w.adas.id}`);
      assert.deepEqual([byToken.statusCode, byToken.json()], [200, { id: w.adas.id, object: 'messageChannel', deleted: true }]);
      assert.deepEqual(await messageRowsOf(w.h, w.adas.id), []);
      assert.deepEqual(
        (await w.audit('messageChannelDeleted')).map((e) => e.context.channelId).sort(),
        [w.adas.id, w.betas.id, group.id].sort(),
      );
      const bad = await del('NOT-AN-ID');
      assert.equal(bad.statusCode, 404);
    });
  });
}
