import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { type AddressInfo, createServer, connect, type Socket } from 'node:net';
import { describe, type TestContext, test } from 'node:test';
import { Redis } from 'ioredis';
import { LimitStoreUnavailableError, RedisLimitStore } from './redis-store.js';
import { limitStoreContract } from './store-contract.test.js';
import { redisPrefixFor } from '../../test/helpers/redis.js';
import { present } from '../../test/helpers/present.js';

/** Set by `npm test` when Redis answered (scripts/test.mjs). */
const redisUrl = process.env.PORTAL_TEST_REDIS_URL;
const skip = redisUrl ? false : 'PORTAL_TEST_REDIS_URL is not set (Redis did not answer)';
const DAY = '2026-01-15';

const prefixFor = redisPrefixFor;

function openStore(t: TestContext, prefix: string, url = present(redisUrl, 'PORTAL_TEST_REDIS_URL')): RedisLimitStore {
  const store = new RedisLimitStore(url, prefix);
  t.after(() => store.close());
  return store;
}

limitStoreContract('RedisLimitStore', async (t) => ({ store: openStore(t, prefixFor(t)), workspace: async () => randomUUID() }), { skip });

/** Rejects with LimitStoreUnavailableError, within `ms`. */
async function assertUnavailable(promise: Promise<unknown>, ms: number, what: string) {
  const started = Date.now();
  await assert.rejects(promise, LimitStoreUnavailableError, what);
  assert.ok(Date.now() - started < ms, `${what}: rejected after ${Date.now() - started} ms`);
}

/** A TCP proxy in front of Redis that a test can stop, restart on the same port, or stall. */
async function redisProxy(t: TestContext) {
  const target = new URL(present(redisUrl, 'PORTAL_TEST_REDIS_URL'));
  const sockets = new Set<Socket>();
  let stalled = false;
  const server = createServer((client) => {
    const upstream = connect(Number(target.port || 6379), target.hostname);
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ]) {
      sockets.add(from);
      from.on('data', (chunk) => stalled || to.write(chunk));
      from.on('error', () => {});
      from.on('close', () => {
        sockets.delete(from);
        to.destroy();
      });
    }
  });
  const listen = (port = 0) =>
    new Promise<number>((resolve) => server.listen(port, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
  const stop = () => {
    for (const socket of sockets) socket.destroy();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  };
  const port = await listen();
  t.after(() => (server.listening ? stop() : undefined));
  return { url: `redis://127.0.0.1:${port}`, stop, restart: () => listen(port), stall: (on: boolean) => (stalled = on) };
}

describe('RedisLimitStore across connections', { skip }, () => {
  test('200 concurrent reservations from two stores (two connections) against a limit of 50 count exactly 50', async (t) => {
    const prefix = prefixFor(t);
    const stores = [openStore(t, prefix), openStore(t, prefix)];
    const ws = randomUUID();
    const results = await Promise.all(Array.from({ length: 200 }, (_, i) => stores[i % 2].reserveQuota(ws, DAY, 50)));
    const allowed = results.filter((r) => r.allowed);
    assert.equal(allowed.length, 50);
    assert.deepEqual(
      allowed.map((r) => r.used).sort((x, y) => x - y),
      Array.from({ length: 50 }, (_, i) => i + 1),
    );
    assert.equal(await stores[0].quotaUsed(ws, DAY), 50);
    assert.equal(await stores[1].quotaUsed(ws, DAY), 50);
  });

  test('a bucket is shared by stores with one prefix, and apart under another prefix', async (t) => {
    const prefix = prefixFor(t);
    const [a, b, other] = [openStore(t, prefix), openStore(t, prefix), openStore(t, prefixFor(t))];
    const now = Date.parse('2026-01-15T12:00:00Z');
    await a.bucket('k', 5, 2, now, true);
    assert.deepEqual(await b.bucket('k', 5, 2, now, true), { allowed: true, tokens: 3 });
    assert.deepEqual(await other.bucket('k', 5, 2, now, true), { allowed: true, tokens: 4 });
  });

  test('keys carry the prefix and expire: a bucket after its full refill (plus margin), a day count after 48 h', async (t) => {
    const prefix = prefixFor(t);
    const store = openStore(t, prefix);
    const admin = new Redis(present(redisUrl, 'PORTAL_TEST_REDIS_URL'));
    t.after(() => admin.quit());
    await store.bucket('user:1', 20, 100, Date.now(), true);
    await store.reserveQuota('ws', DAY, 10);
    await store.reserveQuota('ws', '2026-01-16', 10);
    assert.deepEqual((await admin.keys(`${prefix}*`)).sort(), [
      `${prefix}bucket:user:1`,
      `${prefix}quota:ws:2026-01-15`,
      `${prefix}quota:ws:2026-01-16`,
    ]);
    const bucketTtl = await admin.pttl(`${prefix}bucket:user:1`);
    assert.ok(bucketTtl > 200 && bucketTtl <= 200 + 10_000, `bucket ttl ${bucketTtl}`);
    const quotaTtl = await admin.ttl(`${prefix}quota:ws:2026-01-15`);
    assert.ok(quotaTtl > 47 * 3600 && quotaTtl <= 48 * 3600, `quota ttl ${quotaTtl}`);
    assert.equal(await store.quotaUsed('ws', DAY), 1, 'an earlier day keeps its count');
    await store.releaseQuota('ws', '2026-01-17');
    assert.equal(await admin.exists(`${prefix}quota:ws:2026-01-17`), 0, 'a release creates no key');
  });
});

describe('RedisLimitStore when Redis is unreachable', () => {
  test('every method rejects at once with LimitStoreUnavailableError; close does not hang', async () => {
    const store = new RedisLimitStore('redis://127.0.0.1:1', 'portal-test:');
    await assertUnavailable(store.ready(), 2000, 'ready');
    await assertUnavailable(store.bucket('k', 5, 2, Date.now(), true), 2000, 'bucket');
    await assertUnavailable(store.reserveQuota('ws', DAY, 10), 2000, 'reserveQuota');
    await assertUnavailable(store.releaseQuota('ws', DAY), 2000, 'releaseQuota');
    await assertUnavailable(store.quotaUsed('ws', DAY), 2000, 'quotaUsed');
    await assertUnavailable(store.ping(), 2000, 'ping');
    const started = Date.now();
    await store.close();
    assert.ok(Date.now() - started < 1000);
  });

  test('an outage after start: rejections within a second, then recovery in the background', { skip }, async (t) => {
    const proxy = await redisProxy(t);
    const store = openStore(t, prefixFor(t), proxy.url);
    await store.ready();
    assert.deepEqual(await store.reserveQuota('ws', DAY, 10), { allowed: true, used: 1 });

    await proxy.stop();
    await assertUnavailable(store.reserveQuota('ws', DAY, 10), 1000, 'reserveQuota while down');
    await assertUnavailable(store.ping(), 1000, 'ping while down');

    await proxy.restart();
    const deadline = Date.now() + 5000;
    while (
      await store.ping().then(
        () => false,
        () => true,
      )
    ) {
      assert.ok(Date.now() < deadline, 'reconnected within 5 s');
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.deepEqual(await store.reserveQuota('ws', DAY, 10), { allowed: true, used: 2 }, 'the count survived');

    proxy.stall(true); // connected, but no answer comes back
    await assertUnavailable(store.bucket('k', 5, 2, Date.now(), true), 1000, 'bucket while Redis is stalled');
  });

  // Rule: a process whose own event loop lags past the command timeout (a loaded machine) reads the answer Redis
  // already gave; it does not call Redis unavailable (which made two processes count a quota each on its own).
  test('an answer that came while this process was busy past the timeout is an answer, not an outage', { skip }, async (t) => {
    const store = openStore(t, prefixFor(t));
    await store.ready();
    const answers = Array.from({ length: 20 }, () => store.reserveQuota('ws', DAY, 100));
    // The commands go out on the next tick; then the loop is held past the timeout while Redis answers, in the
    // check phase: the next phase is the timers, before the poll that reads the answers.
    await new Promise<void>((resolve) =>
      setImmediate(() => {
        const until = Date.now() + 800;
        while (Date.now() < until);
        resolve();
      }),
    );
    const settled = await Promise.allSettled(answers);
    assert.deepEqual(
      settled.map((s) => (s.status === 'fulfilled' ? s.value.used : String(s.reason))).sort((a, b) => Number(a) - Number(b)),
      Array.from({ length: 20 }, (_, i) => i + 1),
    );
  });
});
