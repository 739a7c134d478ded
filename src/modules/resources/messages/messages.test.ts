import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  auditEntries,
  createTestInternalUser,
  limitedUserSession,
  mintBearerToken,
  sessionKeyFor,
  withBearer,
} from '../../../../test/helpers/factories.js';
import { BACKENDS, type Harness, adminHarness } from '../../../../test/helpers/harness.js';
import { acmeAndBeta, okJson } from '../../../../test/helpers/world.js';

const UNKNOWN = '3f1c2b4a-5d6e-4f70-8a9b-0c1d2e3f4a5b';

/** Acme Co (ada), Beta (bob, cy), and multi in both Beta and Acme Co; a staff user (Sam) of the whole workspace. */
async function world(h: Harness) {
  const w = await acmeAndBeta(h);
  const cy = await w.betaClient('cy');
  const multi = await w.multiClient();
  /** Creates a channel with the workspace key, one second after the previous one (newest first is a real order). */
  const channel = async (body: object) => {
    h.clock.advance(1000);
    return okJson(await w.call('POST', '/v1/message-channels', body));
  };
  const send = async (body: object, key = w.ws.apiKey) => {
    h.clock.advance(1000);
    return w.call('POST', '/v1/messages', body, key);
  };
  return { ...w, cy, multi, channel, send };
}

/** The 403 of a session naming another sender (a session acts as its own user). */
const FORBIDDEN_SENDER = {
  code: 'forbidden',
  message: 'body.senderId must be the caller’s own user (or left out): a person acts only as itself.',
  data: null,
};

const ids = (res: { json(): { data: { id: string }[] } }) => res.json().data.map((item) => item.id);

for (const backend of BACKENDS) {
  describe(`messages: channels and messages (SDK createMessageChannel … listMessages) [${backend}]`, () => {
    test('a channel of each membership type: its fields as the SDK names them, absent ones left out; messageChannelCreated recorded', async (t) => {
      const h = await adminHarness(t, backend);
      const w = await world(h);
      const individual = await w.channel({ membershipType: 'individual', clientId: w.ada.id });
      assert.deepEqual(
        { ...individual, id: 'ID' },
        {
          id: 'ID',
          object: 'messageChannel',
          createdAt: individual.createdAt,
          updatedAt: individual.createdAt,
          membershipType: 'individual',
          clientId: w.ada.id,
          companyId: w.acme.id,
          membershipEntityId: w.ada.id,
          memberIds: [w.ada.id],
        },
      );
      assert.match(individual.id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      const group = await w.channel({ membershipType: 'group', memberIds: [w.bob.id, w.cy.id] });
      assert.deepEqual(
        [group.membershipType, group.companyId, group.memberIds, 'clientId' in group, 'membershipEntityId' in group],
        ['group', w.beta.id, [w.bob.id, w.cy.id], false, false],
      );
      const company = await w.channel({ membershipType: 'company', companyId: w.beta.id });
      assert.deepEqual(
        Object.keys(company).sort(),
        ['companyId', 'createdAt', 'id', 'membershipEntityId', 'membershipType', 'object', 'updatedAt'],
        'no clientId, memberIds or lastMessageDate on a new company channel',
      );
      assert.equal(company.membershipEntityId, w.beta.id);
      // The deprecated membershipEntityId names the client (individual) or the company (company); companyId chooses for multi.
      const legacy = await w.channel({ membershipType: 'individual', membershipEntityId: w.multi.id, companyId: w.acme.id });
      assert.deepEqual([legacy.clientId, legacy.companyId], [w.multi.id, w.acme.id]);
      const legacyCompany = await w.channel({ membershipType: 'company', membershipEntityId: w.acme.id });
      assert.equal(legacyCompany.companyId, w.acme.id);
      // memberIds is ignored for individual and company channels, as the SDK says.
      const ignored = await w.channel({ membershipType: 'company', companyId: w.acme.id, memberIds: [w.bob.id] });
      assert.equal('memberIds' in ignored, false);

      const created = (await auditEntries(h, w.ws.workspaceId)).filter((e) => e.event_type === 'messageChannelCreated');
      assert.deepEqual(
        created.map((e) => [e.ref, e.object_type, e.scope_company_id, e.context.membershipType]),
        [
          [individual.id, 'messageChannel', w.acme.id, 'individual'],
          [group.id, 'messageChannel', w.beta.id, 'group'],
          [company.id, 'messageChannel', w.beta.id, 'company'],
          [legacy.id, 'messageChannel', w.acme.id, 'individual'],
          [legacyCompany.id, 'messageChannel', w.acme.id, 'company'],
          [ignored.id, 'messageChannel', w.acme.id, 'company'],
        ],
      );
      assert.deepEqual(JSON.parse(created[0].data as string), individual, 'the event carries the channel (its webhook data)');
    });

    test('every channel input rule is a 400 naming its field, and nothing is written', async (t) => {
      const h = await adminHarness(t, backend);
      const w = await world(h);
      const problems = async (body: object) => {
        const res = await w.call('POST', '/v1/message-channels', body);
        assert.equal(res.statusCode, 400, res.body);
        assert.equal(res.json().code, 'bad_request');
        return res.json().data;
      };
      assert.deepEqual(await problems({ membershipType: 'individual' }), [
        { path: 'body.clientId', message: 'is required for an individual channel' },
      ]);
      assert.deepEqual(await problems({ membershipType: 'group', companyId: w.beta.id }), [
        { path: 'body.memberIds', message: 'is required for a group channel' },
      ]);
      assert.deepEqual(await problems({ membershipType: 'company' }), [
        { path: 'body.companyId', message: 'is required for a company channel' },
      ]);
      assert.deepEqual(await problems({ membershipType: 'group', memberIds: [w.ada.id, w.bob.id] }), [
        { path: 'body.memberIds.1', message: `is not in company ${w.acme.id}: all clients must belong to one company` },
      ]);
      assert.deepEqual(await problems({ membershipType: 'individual', clientId: w.multi.id }), [
        { path: 'body.companyId', message: `is required to choose the company: ${w.multi.id} belong to several` },
      ]);
      assert.deepEqual(await problems({ membershipType: 'individual', clientId: w.bob.id, companyId: w.acme.id }), [
        { path: 'body.clientId', message: `is not in company ${w.acme.id}: all clients must belong to one company` },
      ]);
      assert.deepEqual(await problems({ membershipType: 'group', memberIds: [UNKNOWN] }), [
        { path: 'body.memberIds.0', message: 'is not a client of this workspace' },
      ]);
      assert.deepEqual(await problems({ membershipType: 'company', companyId: UNKNOWN }), [
        { path: 'body.companyId', message: 'is not a company of this workspace' },
      ]);
      assert.deepEqual(await problems({ membershipType: 'individual', membershipEntityId: UNKNOWN }), [
        { path: 'body.membershipEntityId', message: 'is not a client of this workspace' },
      ]);
      assert.deepEqual(await problems({ membershipType: 'individual', clientId: w.ada.id, membershipEntityId: w.bob.id }), [
        { path: 'body.membershipEntityId', message: 'is deprecated and names another client than clientId: give clientId alone' },
      ]);
      assert.deepEqual(await problems({ membershipType: 'group', memberIds: [] }), [
        { path: 'body.memberIds', message: 'must NOT have fewer than 1 items' },
      ]);
      const wrongType = await problems({ membershipType: 'team', clientId: w.ada.id });
      assert.deepEqual(
        wrongType.map((p: { path: string }) => p.path),
        ['body.membershipType'],
      );
      const tooMany = await problems({ membershipType: 'group', memberIds: Array.from({ length: 101 }, () => w.bob.id) });
      assert.deepEqual(tooMany, [{ path: 'body.memberIds', message: 'must NOT have more than 100 items' }]);
      const list = await w.call('GET', '/v1/message-channels');
      assert.deepEqual(list.json(), { data: [] }, 'nothing written');
      assert.deepEqual(
        (await auditEntries(h, w.ws.workspaceId)).filter((e) => e.event_type === 'messageChannelCreated'),
        [],
      );
    });

    test('retrieve: the channel; an unknown id or another workspace’s channel is a 404', async (t) => {
      const h = await adminHarness(t, backend);
      const w = await world(h);
      const group = await w.channel({ membershipType: 'group', memberIds: [w.bob.id, w.cy.id] });
      const got = await w.call('GET', `/v1/message-channels/${group.id}`);
      assert.equal(got.statusCode, 200);
      assert.deepEqual(got.json(), group);
      const notFound = { code: 'not_found', message: 'Message channel not found.', data: null };
      for (const id of [UNKNOWN, 'not-a-uuid']) {
        const res = await w.call('GET', `/v1/message-channels/${id}`);
        assert.deepEqual([res.statusCode, res.json()], [404, notFound], id);
      }
      const other = await h.workspace('Other');
      const foreign = await h.as(other.apiKey, { method: 'GET', url: `/v1/message-channels/${group.id}` });
      assert.deepEqual([foreign.statusCode, foreign.json()], [404, notFound]);
      const foreignList = await h.as(other.apiKey, { method: 'GET', url: '/v1/message-channels' });
      assert.deepEqual(foreignList.json(), { data: [] }, 'another workspace lists none of them');
      const foreignSend = await h.as(other.apiKey, {
        method: 'POST',
        url: '/v1/messages',
        payload: { channelId: group.id, text: 'hi', senderId: w.bob.id },
      });
      assert.equal(foreignSend.statusCode, 400);
      assert.deepEqual(foreignSend.json().data[0], { path: 'body.channelId', message: 'is not a message channel of this workspace' });
      const foreignMessages = await h.as(other.apiKey, { method: 'GET', url: `/v1/messages?channelId=${group.id}` });
      assert.deepEqual([foreignMessages.statusCode, foreignMessages.json()], [404, notFound]);
    });

    test('list: newest first, each filter of the SDK (empty ones ignored), pages with nextToken', async (t) => {
      const h = await adminHarness(t, backend);
      const w = await world(h);
      const ada = await w.channel({ membershipType: 'individual', clientId: w.ada.id });
      const bob = await w.channel({ membershipType: 'individual', clientId: w.bob.id });
      const group = await w.channel({ membershipType: 'group', memberIds: [w.bob.id, w.cy.id] });
      const beta = await w.channel({ membershipType: 'company', companyId: w.beta.id });
      const acme = await w.channel({ membershipType: 'company', companyId: w.acme.id });
      const list = (query = '') => w.call('GET', `/v1/message-channels${query}`);
      assert.deepEqual(ids(await list()), [acme.id, beta.id, group.id, bob.id, ada.id], 'newest first');
      assert.deepEqual(ids(await list('?membershipType=company')), [acme.id, beta.id]);
      assert.deepEqual(ids(await list('?membershipType=group')), [group.id]);
      assert.deepEqual(ids(await list(`?clientId=${w.bob.id}`)), [bob.id], 'clientId: the individual channels of the client');
      assert.deepEqual(ids(await list(`?membershipEntityId=${w.bob.id}`)), [bob.id], 'the deprecated alias');
      assert.deepEqual(
        ids(await list(`?clientId=&membershipType=&memberId=`)),
        [acme.id, beta.id, group.id, bob.id, ada.id],
        'the SDK’s empty filters',
      );
      assert.deepEqual(
        ids(await list(`?memberId=${w.bob.id}`)),
        [beta.id, group.id, bob.id],
        'memberId (client): its own, its groups, its company’s',
      );
      assert.deepEqual(ids(await list(`?memberId=${w.multi.id}`)), [acme.id, beta.id], 'both companies of a client of two');
      assert.deepEqual(
        ids(await list(`?memberId=${w.user.id}`)),
        [acme.id, beta.id, group.id, bob.id, ada.id],
        'an unlimited internal user',
      );
      const { user: limited } = await limitedUserSession(h, w.ws.workspaceId, w.app.apiKey, [w.acme.id], 'lim@acme.test');
      assert.deepEqual(ids(await list(`?memberId=${limited.id}`)), [acme.id, ada.id], 'an internal user limited to Acme Co');
      assert.deepEqual(ids(await list(`?memberId=${UNKNOWN}`)), [], 'nobody known: no channel');
      assert.deepEqual(ids(await list(`?memberId=${w.bob.id}&membershipType=individual`)), [bob.id], 'filters combine');

      const first = (await list('?limit=2')).json();
      assert.deepEqual(
        first.data.map((c: { id: string }) => c.id),
        [acme.id, beta.id],
      );
      const second = (await list(`?limit=2&nextToken=${encodeURIComponent(first.nextToken)}`)).json();
      assert.deepEqual(
        second.data.map((c: { id: string }) => c.id),
        [group.id, bob.id],
      );
      const third = (await list(`?limit=2&nextToken=${encodeURIComponent(second.nextToken)}`)).json();
      assert.deepEqual([third.data.map((c: { id: string }) => c.id), third.nextToken], [[ada.id], undefined]);
      const foreignToken = await list(`?membershipType=company&nextToken=${encodeURIComponent(first.nextToken)}`);
      assert.deepEqual(
        [foreignToken.statusCode, foreignToken.json().data],
        [400, [{ path: 'query.nextToken', message: 'is not a page token of this list' }]],
      );
      const badType = await list('?membershipType=team');
      assert.deepEqual([badType.statusCode, badType.json().data[0].path], [400, 'query.membershipType']);
      const badLimit = await list('?limit=1001');
      assert.deepEqual([badLimit.statusCode, badLimit.json().data[0].path], [400, 'query.limit']);
    });

    test('listMessages: a channel with no message is an empty page; an absent, deleted or foreign channel a 404, before any 400 of its token', async (t) => {
      const h = await adminHarness(t, backend);
      const w = await world(h);
      const group = await w.channel({ membershipType: 'group', memberIds: [w.bob.id, w.cy.id] });
      const empty = await w.channel({ membershipType: 'company', companyId: w.beta.id });
      for (const text of ['one', 'two', 'three']) {
        assert.equal((await w.send({ channelId: group.id, text, senderId: w.bob.id })).statusCode, 200);
      }
      const page = (channelId: string, query = '', key = w.ws.apiKey) =>
        h.as(key, { method: 'GET', url: `/v1/messages?channelId=${channelId}${query}` });
      const first = await page(group.id, '&limit=2');
      assert.deepEqual([first.statusCode, first.json().data.map((m: { text: string }) => m.text)], [200, ['three', 'two']]);
      const token = `&nextToken=${encodeURIComponent(first.json().nextToken)}`;
      const last = await page(group.id, `&limit=2${token}`);
      assert.deepEqual(
        [last.statusCode, last.json().data.map((m: { text: string }) => m.text), last.json().nextToken],
        [200, ['one'], undefined],
      );
      const none = await page(empty.id);
      assert.deepEqual([none.statusCode, none.json()], [200, { data: [] }], 'a channel with no message');
      const refused = await page(empty.id, token);
      assert.deepEqual(
        [refused.statusCode, refused.json().data],
        [400, [{ path: 'query.nextToken', message: 'is not a page token of this list' }]],
        'another channel’s token on a channel that is there',
      );
      const notFound = { code: 'not_found', message: 'Message channel not found.', data: null };
      for (const [what, res] of [
        ['an unknown channel', await page(UNKNOWN)],
        ['an unknown channel with another channel’s token', await page(UNKNOWN, token)],
        ['a channel with messages, asked by another workspace', await page(group.id, '', (await h.workspace('Other')).apiKey)],
      ] as const) {
        assert.deepEqual([res.statusCode, res.json()], [404, notFound], what);
      }
      assert.equal((await w.call('DELETE', `/v1/message-channels/${group.id}`)).statusCode, 200);
      const gone = await page(group.id, token);
      assert.deepEqual([gone.statusCode, gone.json()], [404, notFound], 'a deleted channel, with a token it gave');
    });

    test('send: the sender must belong to the channel; a key must name one; lastMessageDate follows; messageSent recorded; listMessages newest first', async (t) => {
      const h = await adminHarness(t, backend);
      const w = await world(h);
      const group = await w.channel({ membershipType: 'group', memberIds: [w.bob.id, w.cy.id] });
      const company = await w.channel({ membershipType: 'company', companyId: w.beta.id });
      const first = await w.send({ channelId: group.id, text: 'Hello team', senderId: w.bob.id });
      assert.equal(first.statusCode, 200, first.body);
      const message = first.json();
      assert.deepEqual(
        { ...message, id: 'ID' },
        {
          id: 'ID',
          object: 'message',
          senderId: w.bob.id,
          createdAt: message.createdAt,
          updatedAt: message.createdAt,
          channelId: group.id,
          text: 'Hello team',
          isAttachmentIncluded: false,
        },
      );
      const afterFirst = (await w.call('GET', `/v1/message-channels/${group.id}`)).json();
      assert.deepEqual(
        [afterFirst.lastMessageDate, afterFirst.updatedAt],
        [message.createdAt, message.createdAt],
        'lastMessageDate follows',
      );
      const staff = await w.send({ channelId: group.id, text: 'Hi from staff', senderId: w.user.id });
      assert.deepEqual([staff.statusCode, staff.json().senderId], [200, w.user.id], 'an internal user who sees the company');
      const companyMember = await w.send({ channelId: company.id, text: 'company-wide', senderId: w.multi.id });
      assert.deepEqual([companyMember.statusCode, companyMember.json().senderId], [200, w.multi.id], 'a client of the company');
      assert.equal((await w.call('GET', `/v1/message-channels/${group.id}`)).json().lastMessageDate, staff.json().createdAt);

      const problem = async (body: object, key = w.ws.apiKey) => {
        const res = await w.send(body, key);
        assert.equal(res.statusCode, 400, res.body);
        return res.json().data;
      };
      assert.deepEqual(await problem({ channelId: group.id, text: 'no sender' }), [
        {
          path: 'body.senderId',
          message:
            'is required with an API key (a key has no user of its own): give a client or internal user who is a member of the channel',
        },
      ]);
      assert.deepEqual(await problem({ channelId: group.id, text: 'x', senderId: w.ada.id }), [
        { path: 'body.senderId', message: 'is a client who is not a member of this channel' },
      ]);
      assert.deepEqual(await problem({ channelId: group.id, text: 'x', senderId: w.multi.id }), [
        { path: 'body.senderId', message: 'is a client who is not a member of this channel' },
      ]);
      assert.deepEqual(await problem({ channelId: group.id, text: 'x', senderId: UNKNOWN }), [
        { path: 'body.senderId', message: 'is not a client or internal user of this workspace' },
      ]);
      const { user: limited } = await limitedUserSession(h, w.ws.workspaceId, w.app.apiKey, [w.acme.id], 'lim@acme.test');
      assert.deepEqual(await problem({ channelId: group.id, text: 'x', senderId: limited.id }), [
        { path: 'body.senderId', message: 'is an internal user who cannot see this channel’s company' },
      ]);
      assert.deepEqual(await problem({ channelId: UNKNOWN, text: 'x', senderId: w.bob.id }), [
        { path: 'body.channelId', message: 'is not a message channel of this workspace' },
      ]);
      assert.deepEqual(await problem({ channelId: group.id, text: '', senderId: w.bob.id }), [
        { path: 'body.text', message: 'must NOT have fewer than 1 characters' },
        {
          path: 'body.text',
          message:
            'must have a character other than white space, and no control characters other than tab, line feed and carriage return, and no lone surrogates',
        },
      ]);
      assert.deepEqual(
        (await problem({ channelId: group.id, text: ' \n\t ', senderId: w.bob.id })).map((p: { path: string }) => p.path),
        ['body.text'],
        'only white space',
      );
      assert.deepEqual(await problem({ channelId: group.id, text: 'x'.repeat(10_001), senderId: w.bob.id }), [
        { path: 'body.text', message: 'must NOT have more than 10000 characters' },
      ]);
      assert.equal(
        (await w.send({ channelId: group.id, text: 'x'.repeat(10_000), senderId: w.bob.id })).statusCode,
        200,
        'the longest text',
      );

      const messages = (query: string) => w.call('GET', `/v1/messages?${query}`);
      const all = await messages(`channelId=${group.id}`);
      assert.equal(all.statusCode, 200);
      assert.deepEqual(
        all.json().data.map((m: { text: string; senderId: string }) => [m.text.slice(0, 13), m.senderId]),
        [
          ['x'.repeat(13), w.bob.id],
          ['Hi from staff', w.user.id],
          ['Hello team', w.bob.id],
        ],
        'newest first; refused sends wrote nothing',
      );
      const page = (await messages(`channelId=${group.id}&limit=2`)).json();
      assert.equal(page.data.length, 2);
      const rest = (await messages(`channelId=${group.id}&limit=2&nextToken=${encodeURIComponent(page.nextToken)}`)).json();
      assert.deepEqual([rest.data.map((m: { id: string }) => m.id), rest.nextToken], [[message.id], undefined]);
      const otherChannelToken = await messages(`channelId=${company.id}&nextToken=${encodeURIComponent(page.nextToken)}`);
      assert.equal(otherChannelToken.statusCode, 400, 'a token of another channel’s list');
      assert.deepEqual(
        (await messages(`channelId=${company.id}`)).json().data.map((m: { text: string }) => m.text),
        ['company-wide'],
      );
      const missing = await messages('');
      assert.deepEqual([missing.statusCode, missing.json().data[0].path], [400, 'query.channelId']);
      const unknown = await messages(`channelId=${UNKNOWN}`);
      assert.deepEqual(
        [unknown.statusCode, unknown.json()],
        [404, { code: 'not_found', message: 'Message channel not found.', data: null }],
      );

      const sent = (await auditEntries(h, w.ws.workspaceId)).filter((e) => e.event_type === 'messageSent');
      assert.equal(sent.length, 4, 'one messageSent per stored message, none for a refused send');
      assert.deepEqual(
        [sent[0].ref, sent[0].object_type, sent[0].scope_company_id, sent[0].context],
        [message.id, 'message', w.beta.id, { channelId: group.id, messageId: message.id, senderId: w.bob.id, senderType: 'client' }],
      );
      assert.deepEqual(JSON.parse(sent[0].data as string), message, 'the event carries the message (its webhook data)');
    });

    test('a client session sees and posts only in its channels, as itself; it creates none', async (t) => {
      const h = await adminHarness(t, backend);
      const w = await world(h);
      const bobs = await w.channel({ membershipType: 'individual', clientId: w.bob.id });
      const group = await w.channel({ membershipType: 'group', memberIds: [w.bob.id, w.cy.id] });
      const beta = await w.channel({ membershipType: 'company', companyId: w.beta.id });
      const adas = await w.channel({ membershipType: 'individual', clientId: w.ada.id });
      const acme = await w.channel({ membershipType: 'company', companyId: w.acme.id });
      const cy = await sessionKeyFor(h, w.ws.workspaceId, { apiKey: w.app.apiKey, clientId: w.cy.id });
      const list = (query = '') => w.call('GET', `/v1/message-channels${query}`, undefined, cy);
      assert.deepEqual(ids(await list()), [beta.id, group.id], 'its group and its company’s channel');
      assert.deepEqual(ids(await list(`?clientId=${w.bob.id}`)), [], 'whatever it asks');
      assert.deepEqual(ids(await list(`?memberId=${w.ada.id}`)), [], 'ada is not a client it sees');
      for (const hidden of [bobs, adas, acme]) {
        assert.equal((await w.call('GET', `/v1/message-channels/${hidden.id}`, undefined, cy)).statusCode, 404);
        assert.equal((await w.call('GET', `/v1/messages?channelId=${hidden.id}`, undefined, cy)).statusCode, 404);
        const post = await w.send({ channelId: hidden.id, text: 'let me in' }, cy);
        assert.deepEqual(
          [post.statusCode, post.json().data],
          [400, [{ path: 'body.channelId', message: 'is not a message channel of this workspace' }]],
        );
      }
      assert.equal((await w.call('GET', `/v1/message-channels/${group.id}`, undefined, cy)).statusCode, 200);

      const sent = await w.send({ channelId: group.id, text: 'from cy' }, cy);
      assert.deepEqual([sent.statusCode, sent.json().senderId], [200, w.cy.id], 'sends as itself');
      const asItself = await w.send({ channelId: beta.id, text: 'again', senderId: w.cy.id.toUpperCase() }, cy);
      assert.equal(asItself.statusCode, 200, 'its own id, in any case, is itself');
      const impersonate = await w.send({ channelId: group.id, text: 'as bob', senderId: w.bob.id }, cy);
      assert.deepEqual(
        [impersonate.statusCode, impersonate.json()],
        [403, FORBIDDEN_SENDER],
        'a session acts as its own user: another senderId is a 403',
      );
      const read = await w.call('GET', `/v1/messages?channelId=${group.id}`, undefined, cy);
      assert.deepEqual(
        read.json().data.map((m: { text: string }) => m.text),
        ['from cy'],
      );
      const create = await w.call('POST', '/v1/message-channels', { membershipType: 'individual', clientId: w.cy.id }, cy);
      assert.deepEqual([create.statusCode, create.json().code], [403, 'forbidden']);
      const actors = (await auditEntries(h, w.ws.workspaceId))
        .filter((e) => e.event_type === 'messageSent')
        .map((e) => [e.actor_id, e.actor_type]);
      assert.deepEqual(actors, [
        [w.cy.id, 'clientUser'],
        [w.cy.id, 'clientUser'],
      ]);
    });

    test('a channel goes with its client or its company; a deleted client leaves the groups it was in', async (t) => {
      const h = await adminHarness(t, backend);
      const w = await world(h);
      const bobs = await w.channel({ membershipType: 'individual', clientId: w.bob.id });
      const group = await w.channel({ membershipType: 'group', memberIds: [w.bob.id, w.cy.id] });
      const acme = await w.channel({ membershipType: 'company', companyId: w.acme.id });
      assert.equal((await w.send({ channelId: bobs.id, text: 'bye', senderId: w.bob.id })).statusCode, 200);
      const deleted = await w.call('DELETE', `/v1/clients/${w.bob.id}`);
      assert.equal(deleted.statusCode, 200, deleted.body);
      assert.equal((await w.call('GET', `/v1/message-channels/${bobs.id}`)).statusCode, 404, 'its individual channel is gone');
      assert.equal((await w.call('GET', `/v1/messages?channelId=${bobs.id}`)).statusCode, 404, 'and its messages with it');
      assert.deepEqual((await w.call('GET', `/v1/message-channels/${group.id}`)).json().memberIds, [w.cy.id]);
      const listed = (await w.call('GET', '/v1/message-channels?membershipType=group')).json().data;
      assert.deepEqual(
        listed.map((c: { memberIds: string[] }) => c.memberIds),
        [[w.cy.id]],
      );
      const refused = await w.send({ channelId: group.id, text: 'ghost', senderId: w.bob.id });
      assert.deepEqual(refused.json().data, [{ path: 'body.senderId', message: 'is not a client or internal user of this workspace' }]);
      assert.equal((await w.call('DELETE', `/v1/companies/${w.acme.id}`)).statusCode, 200);
      assert.equal((await w.call('GET', `/v1/message-channels/${acme.id}`)).statusCode, 404, 'a company channel goes with its company');
    });

    test('an internal user limited to some companies sees, creates and posts in those companies’ channels only', async (t) => {
      const h = await adminHarness(t, backend);
      const w = await world(h);
      const acme = await w.channel({ membershipType: 'company', companyId: w.acme.id });
      const group = await w.channel({ membershipType: 'group', memberIds: [w.bob.id, w.cy.id] });
      const { user, session } = await limitedUserSession(h, w.ws.workspaceId, w.app.apiKey, [w.acme.id], 'lim@acme.test');
      const as = (method: 'GET' | 'POST', url: string, payload?: object) => w.call(method, url, payload, session);
      assert.deepEqual(ids(await as('GET', '/v1/message-channels')), [acme.id]);
      assert.equal((await as('GET', `/v1/message-channels/${group.id}`)).statusCode, 404);
      assert.equal((await as('GET', `/v1/messages?channelId=${group.id}`)).statusCode, 404);
      const hidden = await as('POST', '/v1/messages', { channelId: group.id, text: 'x' });
      assert.deepEqual(hidden.json().data, [{ path: 'body.channelId', message: 'is not a message channel of this workspace' }]);
      const own = await as('POST', '/v1/messages', { channelId: acme.id, text: 'from a limited user' });
      assert.deepEqual([own.statusCode, own.json().senderId], [200, user.id], 'a session sends as its user when senderId is absent');
      const forClient = await as('POST', '/v1/messages', { channelId: acme.id, text: 'for ada', senderId: w.ada.id });
      assert.deepEqual([forClient.statusCode, forClient.json()], [403, FORBIDDEN_SENDER], 'a session never sends as a member it is not');
      const outside = await as('POST', '/v1/message-channels', { membershipType: 'group', memberIds: [w.bob.id] });
      assert.deepEqual(outside.json().data, [{ path: 'body.memberIds.0', message: 'is not a client of this workspace' }]);
      const inside = await as('POST', '/v1/message-channels', { membershipType: 'individual', clientId: w.ada.id });
      assert.equal(inside.statusCode, 200, inside.body);
    });

    test('nobody sends as somebody else: a session names only itself (403 forbidden, nothing written); keys and bearer tokens name any member', async (t) => {
      const h = await adminHarness(t, backend);
      const w = await world(h);
      const acme = await w.channel({ membershipType: 'company', companyId: w.acme.id });
      const admin = await createTestInternalUser(h, w.ws.workspaceId, {
        email: 'boss@acme.test',
        givenName: 'Bo',
        familyName: 'S',
        role: 'admin',
      });
      const { user: limited, session: limitedKey } = await limitedUserSession(
        h,
        w.ws.workspaceId,
        w.app.apiKey,
        [w.acme.id],
        'lim@acme.test',
      );
      const adaKey = await sessionKeyFor(h, w.ws.workspaceId, { apiKey: w.app.apiKey, clientId: w.ada.id });
      const adminKey = await sessionKeyFor(h, w.ws.workspaceId, { apiKey: w.app.apiKey, internalUserId: admin.id });
      for (const [key, senderId, who] of [
        [limitedKey, admin.id, 'a company-limited staff session as an admin'],
        [limitedKey, w.ada.id, 'a company-limited staff session as a client of the channel'],
        [limitedKey, w.multi.id.toUpperCase(), 'as another client, in any case'],
        [adminKey, limited.id, 'an admin session as a staff member'],
        [adminKey, w.ada.id, 'an admin session as a client'],
        [adaKey, w.multi.id, 'a client session as another client of its company'],
        [adaKey, admin.id, 'a client session as an internal user'],
      ] as const) {
        const res = await w.send({ channelId: acme.id, text: `as ${senderId}`, senderId }, key);
        assert.deepEqual([res.statusCode, res.json()], [403, FORBIDDEN_SENDER], who);
      }
      assert.deepEqual((await w.call('GET', `/v1/messages?channelId=${acme.id}`)).json(), { data: [] }, 'nothing written');
      const own = await w.send({ channelId: acme.id, text: 'me', senderId: limited.id.toUpperCase() }, limitedKey);
      assert.deepEqual([own.statusCode, own.json().senderId], [200, limited.id], 'its own id is itself');
      const adas = await w.send({ channelId: acme.id, text: 'ada', senderId: w.ada.id }, adaKey);
      assert.deepEqual([adas.statusCode, adas.json().senderId], [200, w.ada.id]);
      const byKey = await w.send({ channelId: acme.id, text: 'for the admin', senderId: admin.id });
      assert.deepEqual([byKey.statusCode, byKey.json().senderId], [200, admin.id], 'a workspace key names any member');
      const byApp = await w.send({ channelId: acme.id, text: 'for ada', senderId: w.multi.id }, w.app.apiKey);
      assert.deepEqual([byApp.statusCode, byApp.json().senderId], [200, w.multi.id], 'an app key acts for its users');
      const token = (await mintBearerToken(h, w.app.apiKey)).json().token;
      const byBearer = await withBearer(h, token, 'POST', '/v1/messages', { channelId: acme.id, text: 'bearer', senderId: limited.id });
      assert.deepEqual([byBearer.statusCode, byBearer.json().senderId], [200, limited.id], 'a bearer token too');
    });
  });
}
