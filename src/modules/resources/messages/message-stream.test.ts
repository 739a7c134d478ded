// Rule (issue 44, point 2): a new message reaches, without a reload, every open stream of whoever sees its channel:
// GET /v1/messages/stream (server-sent events) sends each message the caller sees once it has committed, exactly as
// GET /v1/messages answers it, to keys, sessions and people signed in to the portal alike, the sender's own stream
// included; whoever does not see the channel (another company's client, another workspace, a client taken out of the
// channel's company) gets nothing of it. A stream resumes after an event's id (Last-Event-ID, or `since`) with exactly
// what it missed, in order, then what comes; it reaches across servers on one database (PostgreSQL's LISTEN/NOTIFY, or
// Redis). At most 5 are open per caller on one server (the 6th a 429); a server shutting down ends them and closes.
// Real sockets throughout (the app listens on a port of its own); every wait is bounded.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { heldWithin } from '../../../../test/helpers/eventually.js';
import { type EventReader, listening, openEventStream } from '../../../../test/helpers/event-stream.js';
import { createClient, createCompany, createTestWorkspace } from '../../../../test/helpers/factories.js';
import { BACKENDS, type Backend, type HarnessOptions, twoServersOnOneDatabase } from '../../../../test/helpers/harness.js';
import { openStreams, streamCursorAt } from '../../../../test/helpers/internals.js';
import { signedInBrowser } from '../../../../test/helpers/portal.js';
import { hasRedisServer, killRedis, redisPrefixFor, startRedis, testRedisUrl } from '../../../../test/helpers/redis.js';
import { freePort } from '../../../../test/helpers/server.js';
import { acmeAndBeta, moduleHarness, okJson } from '../../../../test/helpers/world.js';

/** Acme (ada, staff sam, app key) and Beta (bob) listening on a port; ada's channel, Beta's and Acme's company channels. */
async function world(t: Parameters<typeof moduleHarness>[0], backend: Backend, opts: HarnessOptions = {}) {
  const h = await moduleHarness(t, backend, opts);
  const w = await acmeAndBeta(h);
  const base = await listening(h.app);
  const channel = async (body: object) => okJson(await w.call('POST', '/v1/message-channels', body));
  const adas = await channel({ membershipType: 'individual', clientId: w.ada.id });
  const betas = await channel({ membershipType: 'company', companyId: w.beta.id });
  const acmes = await channel({ membershipType: 'company', companyId: w.acme.id });
  const send = async (channelId: string, text: string, senderId?: string, key = w.ws.apiKey) =>
    okJson(await w.call('POST', '/v1/messages', { channelId, text, ...(senderId ? { senderId } : {}) }, key), `send ${text}`);
  const readers: EventReader[] = [];
  t.after(() => {
    for (const reader of readers) reader.close();
  });
  /** A stream with this key (query and headers added); its first event, `ready`, read. */
  const open = async (key: string, query = '', headers: Record<string, string> = {}) => {
    const reader = await openEventStream(base, `/v1/messages/stream${query}`, { 'x-api-key': key, ...headers });
    readers.push(reader);
    return reader;
  };
  const live = async (key: string, query = '', headers: Record<string, string> = {}) => {
    const reader = await open(key, query, headers);
    assert.equal(reader.status, 200, await Promise.race([reader.ended, Promise.resolve('(streaming)')]));
    const ready = await reader.next('ready');
    assert.equal(ready.event, 'ready');
    return reader;
  };
  return { ...w, base, adas, betas, acmes, send, open, live, readers };
}

const CURSOR = /^[A-Za-z0-9_-]{22}$/;

for (const backend of BACKENDS) {
  describe(`the message stream (GET /v1/messages/stream) [${backend}]`, () => {
    test('a member’s stream gets a message another sends, and so do the sender’s, a key’s and the portal’s, exactly as GET /v1/messages answers it', async (t) => {
      const w = await world(t, backend);
      const ada = await w.session({ clientId: w.ada.id });
      const sam = await w.session({ internalUserId: w.user.id });
      assert.equal((await w.call('POST', `/v1/clients/${w.ada.id}/invite`)).statusCode, 200);
      const browser = await signedInBrowser(w.h, w.ws.workspaceId, w.ada.email);

      const adaStream = await w.open(ada);
      assert.equal(adaStream.status, 200);
      assert.equal(adaStream.headers['content-type'], 'text/event-stream; charset=utf-8');
      assert.equal(adaStream.headers['cache-control'], 'no-store');
      assert.equal(adaStream.headers['x-accel-buffering'], 'no');
      const ready = await adaStream.next('ready');
      assert.deepEqual([ready.event, ready.data], ['ready', '{}']);
      assert.match(ready.id ?? '', CURSOR);
      assert.deepEqual(adaStream.retries, [2000], 'the reconnection delay comes first');
      const samStream = await w.live(sam);
      const keyStream = await w.live(w.ws.apiKey);
      const portal = await openEventStream(w.base, `/portal/${w.ws.workspaceId}/v1/messages/stream`, {
        cookie: `portal_session=${browser.cookie}`,
      });
      w.readers.push(portal);
      assert.equal(portal.status, 200, 'a person signed in opens it with its cookie alone (a GET needs no X-Portal-Request)');
      assert.equal((await portal.next('ready')).id, ready.id, 'the same position reads the same, whoever’s stream shows it');

      // Sam (staff, through the app's session) writes to Ada, with what JSON must escape.
      const text = 'Hello "Ada" \\ ✓\nsecond line\u2028and more';
      const sent = await w.send(w.adas.id, text, undefined, sam);
      const listed = await w.call('GET', `/v1/messages?channelId=${w.adas.id}`);
      const asListed = listed.body.slice('{"data":['.length, -']}'.length);
      assert.deepEqual(JSON.parse(asListed), sent);
      const ids = new Set<string | undefined>();
      for (const [who, stream] of [
        ['ada’s session', adaStream],
        ['sam’s session (the sender)', samStream],
        ['the workspace key', keyStream],
        ['ada signed in to the portal', portal],
      ] as const) {
        const event = await stream.next(`${who}: the message`);
        assert.equal(event.event, 'message.created', who);
        assert.equal(event.data, asListed, `${who}: the message exactly as GET /v1/messages answers it`);
        assert.match(event.id ?? '', CURSOR, who);
        assert.notEqual(event.id, ready.id, who);
        ids.add(event.id);
      }
      assert.equal(ids.size, 1, 'one position for one message');
    });

    test('who does not see the channel gets nothing of it: another company’s client, another workspace, a client taken out of the channel’s company', async (t) => {
      const w = await world(t, backend);
      const multi = await w.multiClient(); // in Beta, and in Acme too
      const bob = await w.live(await w.session({ clientId: w.bob.id }));
      const multiStream = await w.live(await w.session({ clientId: multi.id, companyId: w.beta.id }));
      const other = await w.h.workspace('Other');
      const otherStream = await w.live(other.apiKey);
      const otherCompany = await createCompany(w.h, other.apiKey, { name: 'Other Co' });
      const otherClient = await createClient(w.h, other.apiKey, {
        email: 'oz@other.test',
        givenName: 'Oz',
        familyName: 'O',
        companyId: otherCompany.id,
      });
      const othersChannel = okJson(
        await w.call('POST', '/v1/message-channels', { membershipType: 'individual', clientId: otherClient.id }, other.apiKey),
      );

      await w.send(w.adas.id, 'for Ada alone', w.user.id);
      await w.send(w.acmes.id, 'for Acme', w.user.id);
      assert.equal((await multiStream.nextMessage('multi: Acme’s message')).message.text, 'for Acme', 'multi is in Acme');
      // Multi is taken out of Acme: its stream, open since before, gets none of Acme's messages from now on.
      const moved = await w.call('PUT', `/v1/clients/${multi.id}`, { givenName: 'Mu', familyName: 'M', companyId: w.beta.id });
      assert.equal(moved.statusCode, 200, moved.body);
      await w.send(w.acmes.id, 'for Acme, without multi', w.user.id);
      await w.send(w.betas.id, 'for Beta', w.bob.id);
      assert.equal((await multiStream.nextMessage('multi: Beta’s message')).message.text, 'for Beta');
      assert.equal((await bob.nextMessage('bob: Beta’s message')).message.text, 'for Beta', 'the first bob sees');

      await w.send(othersChannel.id, 'for Oz', otherClient.id, other.apiKey);
      assert.equal((await otherStream.nextMessage('another workspace: its own message')).message.text, 'for Oz', 'the first it sees');
      // Nor does anything of this workspace reach the other's afterwards.
      await w.send(w.betas.id, 'for Beta again', w.bob.id);
      await w.send(othersChannel.id, 'for Oz again', otherClient.id, other.apiKey);
      assert.equal((await otherStream.nextMessage('another workspace: its next')).message.text, 'for Oz again');
    });

    test('one channel’s stream (channelId); a channel the caller does not see is a 404, as GET /v1/messages answers', async (t) => {
      const w = await world(t, backend);
      const ada = await w.session({ clientId: w.ada.id });
      const adasOnly = await w.live(ada, `?channelId=${w.adas.id.toUpperCase()}`);
      await w.send(w.acmes.id, 'Acme-wide', w.user.id);
      await w.send(w.adas.id, 'just Ada', w.user.id);
      assert.equal((await adasOnly.nextMessage('ada’s channel')).message.text, 'just Ada', 'Acme’s channel is not this stream’s');
      for (const channelId of [w.betas.id, '6f0c6fd8-6a5b-4f3a-9a1e-1f2b3c4d5e6f']) {
        const hidden = await w.open(ada, `?channelId=${channelId}`);
        assert.equal(hidden.status, 404);
        assert.deepEqual(JSON.parse(await hidden.ended), { code: 'not_found', message: 'Message channel not found.', data: null });
        const listed = await w.call('GET', `/v1/messages?channelId=${channelId}`, undefined, ada);
        assert.equal(listed.statusCode, 404);
      }
      const unknownField = await w.open(ada, '?channel=x');
      assert.equal(unknownField.status, 400);
      assert.equal(openStreams(w.h.app), 1, 'refused streams hold no place');
    });

    test('reconnecting with Last-Event-ID (or since) sends exactly what was missed, in order, then what comes; the header wins', async (t) => {
      const w = await world(t, backend);
      const ada = await w.session({ clientId: w.ada.id });
      const first = await w.live(ada);
      await w.send(w.adas.id, 'm1', w.user.id);
      const m1 = await first.nextMessage('m1');
      first.close();
      await w.send(w.adas.id, 'm2', w.user.id);
      await w.send(w.betas.id, 'not for Ada', w.bob.id);
      await w.send(w.acmes.id, 'm3', w.user.id);
      await w.send(w.adas.id, 'm4', w.ada.id);

      const texts = async (reader: EventReader, count: number) => {
        const got: { id: string | undefined; text: unknown }[] = [];
        for (let i = 0; i < count; i++) {
          const { id, message } = await reader.nextMessage(`message ${i + 1} of ${count}`);
          got.push({ id, text: message.text });
        }
        return got;
      };
      const again = await w.open(ada, '', { 'last-event-id': m1.id as string });
      const readyAgain = await again.next('ready');
      assert.deepEqual([readyAgain.event, readyAgain.id], ['ready', m1.id], 'live from where it was');
      const missed = await texts(again, 3);
      assert.deepEqual(
        missed.map((m) => m.text),
        ['m2', 'm3', 'm4'],
      );
      assert.equal(new Set(missed.map((m) => m.id)).size, 3);
      await w.send(w.adas.id, 'm5', w.user.id);
      assert.deepEqual(
        (await texts(again, 1)).map((m) => m.text),
        ['m5'],
        'then what comes, once',
      );

      const bySince = await w.live(ada, `?since=${m1.id}`);
      assert.deepEqual(
        (await texts(bySince, 4)).map((m) => m.text),
        ['m2', 'm3', 'm4', 'm5'],
      );
      // EventSource reconnects to the URL it opened (with its `since`) and adds Last-Event-ID: the header wins.
      const both = await w.live(ada, `?since=${missed[2].id}`, { 'last-event-id': missed[0].id as string });
      assert.deepEqual(
        (await texts(both, 3)).map((m) => m.text),
        ['m3', 'm4', 'm5'],
      );
      const fresh = await w.live(ada);
      await w.send(w.adas.id, 'm6', w.user.id);
      assert.deepEqual(
        (await texts(fresh, 1)).map((m) => m.text),
        ['m6'],
        'without a cursor: from now on',
      );

      // One character changed, in the middle (the last one's low bits are padding, which base64 ignores).
      const altered = (cursor: string) => `${cursor.slice(0, 10)}${cursor[10] === 'A' ? 'B' : 'A'}${cursor.slice(11)}`;
      const other = await w.h.workspace('Other');
      const foreign = (await w.live(other.apiKey)).events[0].id as string;
      for (const [headers, query, field] of [
        [{ 'last-event-id': 'garbage' }, '', 'headers.last-event-id'],
        [{ 'last-event-id': altered(m1.id as string) }, '', 'headers.last-event-id'],
        [{ 'last-event-id': `${(m1.id as string).slice(0, 21)}${(m1.id as string)[21] === 'A' ? 'B' : 'A'}` }, '', 'headers.last-event-id'],
        [{}, `?since=${foreign}`, 'query.since'],
      ] as const) {
        const refused = await w.open(ada, query, headers);
        assert.equal(refused.status, 400, `${field}: ${JSON.stringify(headers)} ${query}`);
        assert.deepEqual(JSON.parse(await refused.ended), {
          code: 'bad_request',
          message: `${field}: is not a position of this workspace’s message stream`,
          data: [{ path: field, message: 'is not a position of this workspace’s message stream' }],
        });
      }
    });

    test('more missed than a stream replays (1,000), or a position past the newest: `reset`, then what comes', async (t) => {
      const w = await world(t, backend);
      const key = w.ws.apiKey;
      const start = (await w.live(key)).events[0].id as string;
      for (let i = 0; i < 1001; i += 50)
        await Promise.all(Array.from({ length: Math.min(50, 1001 - i) }, (_, k) => w.send(w.adas.id, `bulk ${i + k}`, w.user.id)));
      const behind = await w.live(key, `?since=${start}`);
      const reset = await behind.next('reset');
      assert.equal(reset.event, 'reset');
      assert.deepEqual(JSON.parse(reset.data), {
        reason: 'More than 1000 messages were missed: read them again (GET /v1/messages).',
      });
      assert.equal(reset.id, behind.events[0].id, 'from the newest');
      await w.send(w.adas.id, 'after the reset', w.user.id);
      assert.equal((await behind.nextMessage('after the reset')).message.text, 'after the reset');

      const future = await w.live(key, `?since=${streamCursorAt(w.h, w.ws.workspaceId, 1_000_000)}`);
      const ahead = await future.next('reset');
      assert.deepEqual(
        [ahead.event, JSON.parse(ahead.data).reason.startsWith('This position is past the newest message')],
        ['reset', true],
      );
      await w.send(w.adas.id, 'after the other reset', w.user.id);
      assert.equal((await future.nextMessage('after the other reset')).message.text, 'after the other reset');
    });

    test('40 messages sent at once are numbered once each, in commit order: a stream gets each once, and resuming from any one gives exactly those after it', async (t) => {
      const w = await world(t, backend, { env: { LIMITS_ENABLED: 'false' } });
      const key = w.ws.apiKey;
      const reader = await w.live(key);
      const sent = await Promise.all(
        Array.from({ length: 40 }, (_, i) => w.send(i % 2 ? w.adas.id : w.acmes.id, `at once ${i}`, w.user.id)),
      );
      const got: { id: string; text: string }[] = [];
      for (let i = 0; i < 40; i++) {
        const { id, message } = await reader.nextMessage(`message ${i + 1} of 40`);
        got.push({ id: id as string, text: message.text as string });
      }
      assert.deepEqual(got.map((m) => m.text).sort(), sent.map((m) => (m as { text: string }).text).sort(), 'each message once');
      assert.equal(new Set(got.map((m) => m.id)).size, 40, 'forty positions');
      for (const at of [0, 17, 38]) {
        const resumed = await w.live(key, `?since=${got[at].id}`);
        const after: string[] = [];
        for (let i = at + 1; i < 40; i++) after.push((await resumed.nextMessage(`resumed ${i}`)).message.text as string);
        assert.deepEqual(
          after,
          got.slice(at + 1).map((m) => m.text),
          `after position ${at}: the same order, no gap, no repeat`,
        );
        resumed.close();
      }
    });

    test('at most 5 streams per caller on one server: of 40 opened at once, 5 stream and 35 are 429s; a person’s cookie counts as its session', async (t) => {
      const w = await world(t, backend, { env: { LIMITS_ENABLED: 'false' } });
      const ada = await w.session({ clientId: w.ada.id });
      const forty = await Promise.all(Array.from({ length: 40 }, () => w.open(ada)));
      const six = forty.filter((r) => r.status === 200);
      assert.deepEqual(forty.map((r) => r.status).sort(), [...Array(5).fill(200), ...Array(35).fill(429)]);
      for (const extra of forty.filter((r) => r.status === 429).slice(1)) extra.close();
      const refused = forty.find((r) => r.status === 429) as EventReader;
      assert.equal(refused.headers['retry-after'], '2');
      assert.deepEqual(JSON.parse(await refused.ended), {
        code: 'rate_limit_exceeded',
        message: 'Too many open event streams: at most 5 per caller on one server; close one (or wait for one to end) first.',
        data: null,
      });
      assert.equal((await w.open(w.ws.apiKey)).status, 200, 'another caller is not counted with ada');
      assert.equal((await w.call('POST', `/v1/clients/${w.ada.id}/invite`)).statusCode, 200);
      const browser = await signedInBrowser(w.h, w.ws.workspaceId, w.ada.email);
      const byCookie = await openEventStream(w.base, `/portal/${w.ws.workspaceId}/v1/messages/stream`, {
        cookie: `portal_session=${browser.cookie}`,
      });
      w.readers.push(byCookie);
      assert.equal(byCookie.status, 429, 'ada signed in is ada');

      six[0].close();
      await heldWithin(5000, 'a place is free once a stream is closed', async () => {
        const next = await w.open(ada);
        return next.status === 200;
      });
    });

    test('a heartbeat keeps a quiet stream open; a stream ends after its lifetime and the client resumes where it was', async (t) => {
      const w = await world(t, backend, { eventStreams: { heartbeatMs: 50, lifetimeMs: 1500 } });
      const stream = await w.live(w.ws.apiKey);
      await heldWithin(5000, 'a heartbeat', async () => stream.comments.includes('heartbeat'));
      await w.send(w.adas.id, 'before the end', w.user.id);
      const before = await stream.nextMessage('before the end');
      await heldWithin(10_000, 'the stream ends by itself', async () => stream.isOver);
      await w.send(w.adas.id, 'while away', w.user.id);
      const resumed = await w.live(w.ws.apiKey, '', { 'last-event-id': before.id as string });
      assert.equal((await resumed.nextMessage('while away')).message.text, 'while away');
    });

    test('HEAD answers the stream’s head and holds nothing open', async (t) => {
      const w = await world(t, backend);
      const head = await w.h.as(w.ws.apiKey, { method: 'HEAD', url: '/v1/messages/stream' });
      assert.equal(head.statusCode, 200);
      assert.equal(head.headers['content-type'], 'text/event-stream; charset=utf-8');
      assert.equal(head.body, '');
      assert.equal(openStreams(w.h.app), 0);
    });

    test('a server shutting down ends its open streams, and closes', async (t) => {
      const w = await world(t, backend);
      const streams = [await w.live(w.ws.apiKey), await w.live(await w.session({ clientId: w.ada.id }))];
      assert.equal(openStreams(w.h.app), 2);
      const metrics = await w.h.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${w.h.adminToken}` } });
      assert.match(metrics.body, /^portal_event_streams_open 2$/m, 'what /metrics says');
      const closed = w.h.app.close();
      const bounded = new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error('app.close() did not return within 10 s')), 10_000).unref(),
      );
      await Promise.race([closed, bounded]);
      for (const stream of streams) {
        const text = await Promise.race([stream.ended, bounded]);
        assert.ok(text.startsWith('retry: 2000\n\nid: '), text);
      }
      assert.equal(openStreams(w.h.app), 0);
    });
  });
}

// Across servers: two app instances on one database, each with its own bus connection, as two processes.
async function acrossTwo(t: Parameters<typeof moduleHarness>[0], backend: Backend, env: Record<string, string> = {}) {
  const { one, two, clock } = await twoServersOnOneDatabase(t, backend, env);
  const [baseOne, baseTwo] = [await listening(one), await listening(two)];
  const ws = await createTestWorkspace({ app: one, clock }, 'Across');
  const post = async (app: typeof one, url: string, payload: object) =>
    okJson(await app.inject({ method: 'POST', url, headers: { 'x-api-key': ws.apiKey }, payload }), `POST ${url}`);
  const company = await post(one, '/v1/companies', { name: 'Across Co' });
  const client = await post(one, '/v1/clients', { email: 'ann@across.test', givenName: 'Ann', familyName: 'A', companyId: company.id });
  const channel = await post(one, '/v1/message-channels', { membershipType: 'individual', clientId: client.id });
  const send = (app: typeof one, text: string) => post(app, '/v1/messages', { channelId: channel.id, text, senderId: client.id });
  const streamOn = async (base: string) => {
    const reader = await openEventStream(base, '/v1/messages/stream', { 'x-api-key': ws.apiKey });
    t.after(() => reader.close());
    assert.equal(reader.status, 200);
    await reader.next('ready');
    return reader;
  };
  return { one, two, ws, baseOne, baseTwo, send, streamOn };
}

describe('the message stream across two servers on one database', () => {
  test('PostgreSQL (LISTEN/NOTIFY): a message sent through one reaches a stream on the other; a lost listening connection comes back with what went by', {
    skip: !BACKENDS.includes('postgres') && 'PORTAL_TEST_POSTGRES_URL is not set',
  }, async (t) => {
    const x = await acrossTwo(t, 'postgres');
    assert.deepEqual([x.one.ctx.events.bus.transport, x.two.ctx.events.bus.transport], ['postgres', 'postgres']);
    const [onOne, onTwo] = [await x.streamOn(x.baseOne), await x.streamOn(x.baseTwo)];
    await x.send(x.one, 'through one');
    assert.equal((await onTwo.nextMessage('on two')).message.text, 'through one');
    assert.equal((await onOne.nextMessage('on one')).message.text, 'through one');
    await x.send(x.two, 'through two');
    assert.equal((await onOne.nextMessage('on one, from two')).message.text, 'through two');
    assert.equal((await onTwo.nextMessage('on two, its own')).message.text, 'through two');

    // Both listening connections killed (as a restarted PostgreSQL, a failover would): sent meanwhile, it still arrives.
    const admin = new pg.Client({ connectionString: process.env.PORTAL_TEST_POSTGRES_URL });
    await admin.connect();
    t.after(() => admin.end());
    const { rows } = await sql<{ name: string }>`select current_database() as name`.execute(x.one.ctx.db);
    const killed = await admin.query(
      "select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and application_name = 'portal-events'",
      [rows[0].name],
    );
    assert.equal(killed.rowCount, 2, 'both servers’ listening connections');
    await x.send(x.one, 'while they were away');
    assert.equal((await onTwo.nextMessage('on two, after the loss', 15_000)).message.text, 'while they were away');
    assert.equal((await onOne.nextMessage('on one, after the loss', 15_000)).message.text, 'while they were away');
    await x.send(x.two, 'after');
    assert.equal((await onOne.nextMessage('on one, afterwards', 15_000)).message.text, 'after');
  });

  for (const backend of BACKENDS) {
    test(`Redis (REDIS_URL), on ${backend}: a message sent through one reaches a stream on the other`, {
      skip: !testRedisUrl && 'PORTAL_TEST_REDIS_URL is not set',
    }, async (t) => {
      const x = await acrossTwo(t, backend, { REDIS_URL: testRedisUrl as string, REDIS_KEY_PREFIX: redisPrefixFor(t) });
      assert.deepEqual([x.one.ctx.events.bus.transport, x.two.ctx.events.bus.transport], ['redis', 'redis']);
      const [onOne, onTwo] = [await x.streamOn(x.baseOne), await x.streamOn(x.baseTwo)];
      await x.send(x.one, 'through one');
      assert.equal((await onTwo.nextMessage('on two')).message.text, 'through one');
      assert.equal((await onOne.nextMessage('on one')).message.text, 'through one');
      await x.send(x.two, 'through two');
      assert.equal((await onOne.nextMessage('on one, from two')).message.text, 'through two');
    });
  }

  test('Redis lost and back: what was sent meanwhile reaches the other server’s stream once it answers again', {
    skip: !hasRedisServer && 'redis-server is not installed',
  }, async (t) => {
    const port = await freePort();
    let redis = await startRedis(port);
    t.after(() => killRedis(redis));
    const x = await acrossTwo(t, 'sqlite', { REDIS_URL: `redis://127.0.0.1:${port}`, REDIS_KEY_PREFIX: 'stream-test:' });
    const [onOne, onTwo] = [await x.streamOn(x.baseOne), await x.streamOn(x.baseTwo)];
    await x.send(x.one, 'before');
    assert.equal((await onTwo.nextMessage('on two, before')).message.text, 'before');
    assert.equal((await onOne.nextMessage('on one, before')).message.text, 'before');
    await killRedis(redis);
    await x.send(x.one, 'while Redis is down');
    assert.equal((await onOne.nextMessage('on one, its own at once')).message.text, 'while Redis is down');
    redis = await startRedis(port);
    assert.equal((await onTwo.nextMessage('on two, once Redis answers', 15_000)).message.text, 'while Redis is down');
    await x.send(x.two, 'after');
    assert.equal((await onOne.nextMessage('on one, after', 15_000)).message.text, 'after');
  });
});
