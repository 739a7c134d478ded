// The behaviour every LimitStore shares, run against each implementation by its own test file
// (memory-store.test.ts, redis-store.test.ts). Registers no test by itself.
import assert from 'node:assert/strict';
import { describe, type TestContext, test } from 'node:test';
import type { LimitStore } from './limit-store.js';

export interface StoreUnderTest {
  store: LimitStore;
  /** A workspace id the store may count for (the in-process store persists counts per workspace row). */
  workspace(): Promise<string>;
}

const T0 = Date.parse('2026-01-15T12:00:00.000Z');
const DAY = '2026-01-15';
const NEXT_DAY = '2026-01-16';

/** Elapsed times below are multiples of 125 ms so every refill is exact in binary floating point. */
export function limitStoreContract(
  name: string,
  open: (t: TestContext) => Promise<StoreUnderTest>,
  options: { skip?: string | false } = {},
) {
  describe(name, { skip: options.skip }, () => {
    test('bucket: full when new, one token per take, then refused', async (t) => {
      const { store } = await open(t);
      assert.deepEqual(await store.bucket('k', 5, 2, T0, false), { allowed: true, tokens: 5 });
      for (const tokens of [4, 3, 2, 1, 0]) assert.deepEqual(await store.bucket('k', 5, 2, T0, true), { allowed: true, tokens });
      assert.deepEqual(await store.bucket('k', 5, 2, T0, true), { allowed: false, tokens: 0 });
      assert.deepEqual(await store.bucket('other', 5, 2, T0, true), { allowed: true, tokens: 4 }, 'keys are independent');
    });

    test('bucket: continuous refill from the last call, fractions kept, capped at capacity', async (t) => {
      const { store } = await open(t);
      for (let i = 0; i < 5; i++) await store.bucket('k', 5, 2, T0, true);
      assert.deepEqual(await store.bucket('k', 5, 2, T0 + 250, true), { allowed: false, tokens: 0.5 }, 'half a token is not one');
      assert.deepEqual(await store.bucket('k', 5, 2, T0 + 375, true), { allowed: false, tokens: 0.75 });
      assert.deepEqual(await store.bucket('k', 5, 2, T0 + 500, true), { allowed: true, tokens: 0 }, 'a whole token is taken');
      assert.deepEqual(await store.bucket('k', 5, 2, T0 + 1625, true), { allowed: true, tokens: 1.25 });
      assert.deepEqual(await store.bucket('k', 5, 2, T0 + 60_000, false), { allowed: true, tokens: 5 }, 'capped');
      assert.deepEqual(await store.bucket('k', 5, 2, T0 + 60_000, true), { allowed: true, tokens: 4 });
      assert.deepEqual(await store.bucket('get', 20, 100, T0, true), { allowed: true, tokens: 19 }, 'contract defaults');
    });

    test('admit: a token then a quota unit in one step; no unit without a token; exempt requests only read the count', async (t) => {
      const { store, workspace } = await open(t);
      const workspaceId = await workspace();
      const base = { capacity: 2, refillPerSecond: 1, nowMs: T0, workspaceId, day: DAY, limit: 3, reserve: true };
      assert.deepEqual(await store.admit({ ...base, bucketKey: 'a' }), {
        bucket: { allowed: true, tokens: 1 },
        quota: { allowed: true, used: 1 },
      });
      assert.deepEqual(await store.admit({ ...base, bucketKey: 'a' }), {
        bucket: { allowed: true, tokens: 0 },
        quota: { allowed: true, used: 2 },
      });
      assert.deepEqual(
        await store.admit({ ...base, bucketKey: 'a' }),
        { bucket: { allowed: false, tokens: 0 }, quota: { allowed: false, used: 2 } },
        'no token: nothing reserved',
      );
      assert.deepEqual(
        await store.admit({ ...base, bucketKey: 'b', reserve: false }),
        { bucket: { allowed: true, tokens: 1 }, quota: { allowed: false, used: 2 } },
        'exempt',
      );
      assert.deepEqual(await store.admit({ ...base, bucketKey: 'c' }), {
        bucket: { allowed: true, tokens: 1 },
        quota: { allowed: true, used: 3 },
      });
      assert.deepEqual(
        await store.admit({ ...base, bucketKey: 'd' }),
        { bucket: { allowed: true, tokens: 1 }, quota: { allowed: false, used: 3 } },
        'quota reached',
      );
    });

    test('bucket: take:false only looks', async (t) => {
      const { store } = await open(t);
      await store.bucket('k', 5, 2, T0, true);
      for (let i = 0; i < 3; i++) assert.deepEqual(await store.bucket('k', 5, 2, T0, false), { allowed: true, tokens: 4 });
      for (let i = 0; i < 4; i++) await store.bucket('k', 5, 2, T0, true);
      assert.deepEqual(await store.bucket('k', 5, 2, T0, false), { allowed: false, tokens: 0 });
      assert.deepEqual(await store.bucket('k', 5, 2, T0 + 500, false), { allowed: true, tokens: 1 });
      assert.deepEqual(
        await store.bucket('k', 5, 2, T0 + 500, false),
        { allowed: true, tokens: 1 },
        'looking twice at one time adds nothing',
      );
    });

    test('bucket: a time earlier than the last call (another process clock) neither refills nor moves the start', async (t) => {
      const { store } = await open(t);
      for (let i = 0; i < 5; i++) await store.bucket('k', 5, 2, T0, true);
      assert.deepEqual(await store.bucket('k', 5, 2, T0 - 10_000, true), { allowed: false, tokens: 0 });
      assert.deepEqual(
        await store.bucket('k', 5, 2, T0 + 250, false),
        { allowed: false, tokens: 0.5 },
        'refilled from T0, not from the earlier time',
      );
    });

    // Rule (issue 42, point 1): a guess takes its token before it is evaluated, in one atomic step, so a burst
    // evaluates at most the tokens left; a right guess gives its token back (refund), atomically too.
    test('bucket: 40 concurrent takes with 3 tokens left: exactly 3 allowed', async (t) => {
      const { store } = await open(t);
      for (let i = 0; i < 7; i++) await store.bucket('k', 10, 1 / 90, T0, true);
      const results = await Promise.all(Array.from({ length: 40 }, () => store.bucket('k', 10, 1 / 90, T0, true)));
      assert.equal(results.filter((r) => r.allowed).length, 3);
      assert.deepEqual(await store.bucket('k', 10, 1 / 90, T0, false), { allowed: false, tokens: 0 });
    });

    test('refund: gives one token back, refilled to now first, never above capacity', async (t) => {
      const { store } = await open(t);
      for (let i = 0; i < 5; i++) await store.bucket('k', 5, 2, T0, true);
      assert.deepEqual(await store.refund('k', 5, 2, T0), { allowed: true, tokens: 1 });
      assert.deepEqual(await store.bucket('k', 5, 2, T0, true), { allowed: true, tokens: 0 }, 'the refunded token is usable');
      assert.deepEqual(await store.refund('k', 5, 2, T0 + 250), { allowed: true, tokens: 1.5 }, 'refilled to now, then one more');
      assert.deepEqual(await store.refund('k', 5, 2, T0 + 60_000), { allowed: true, tokens: 5 }, 'capped');
      assert.deepEqual(await store.refund('new', 5, 2, T0), { allowed: true, tokens: 5 }, 'a new bucket is full');
      const taken = await Promise.all(Array.from({ length: 5 }, () => store.bucket('c', 5, 2, T0, true)));
      await Promise.all(Array.from({ length: 3 }, () => store.refund('c', 5, 2, T0)));
      assert.equal(taken.filter((r) => r.allowed).length, 5);
      assert.deepEqual(await store.bucket('c', 5, 2, T0, false), { allowed: true, tokens: 3 }, 'concurrent refunds each count');
    });

    test('quota: reserves up to the limit, then refuses with the count', async (t) => {
      const { store, workspace } = await open(t);
      const ws = await workspace();
      assert.equal(await store.quotaUsed(ws, DAY), 0);
      for (const used of [1, 2, 3]) assert.deepEqual(await store.reserveQuota(ws, DAY, 3), { allowed: true, used });
      assert.deepEqual(await store.reserveQuota(ws, DAY, 3), { allowed: false, used: 3 });
      assert.deepEqual(await store.reserveQuota(ws, DAY, 3), { allowed: false, used: 3 }, 'a refusal counts nothing');
      assert.equal(await store.quotaUsed(ws, DAY), 3);
      assert.deepEqual(await store.reserveQuota(ws, DAY, 4), { allowed: true, used: 4 }, 'a raised limit applies at once');
      assert.deepEqual(await store.reserveQuota(ws, DAY, 2), { allowed: false, used: 4 }, 'a lowered one too');
    });

    test('quota: release gives a unit back, never below 0', async (t) => {
      const { store, workspace } = await open(t);
      const ws = await workspace();
      assert.equal(await store.releaseQuota(ws, DAY), 0, 'nothing to release');
      assert.equal(await store.quotaUsed(ws, DAY), 0);
      await store.reserveQuota(ws, DAY, 2);
      await store.reserveQuota(ws, DAY, 2);
      assert.equal(await store.releaseQuota(ws, DAY), 1);
      assert.deepEqual(await store.reserveQuota(ws, DAY, 2), { allowed: true, used: 2 }, 'the released unit is usable again');
      assert.equal(await store.releaseQuota(ws, DAY), 1);
      assert.equal(await store.releaseQuota(ws, DAY), 0);
      assert.equal(await store.releaseQuota(ws, DAY), 0);
      assert.equal(await store.quotaUsed(ws, DAY), 0);
    });

    test('quota: workspaces and days are counted apart', async (t) => {
      const { store, workspace } = await open(t);
      const [a, b] = [await workspace(), await workspace()];
      await store.reserveQuota(a, DAY, 2);
      await store.reserveQuota(a, DAY, 2);
      assert.equal((await store.reserveQuota(a, DAY, 2)).allowed, false);
      assert.deepEqual(await store.reserveQuota(b, DAY, 2), { allowed: true, used: 1 }, 'another workspace');
      assert.equal(await store.quotaUsed(b, DAY), 1);
      assert.deepEqual(await store.reserveQuota(a, NEXT_DAY, 2), { allowed: true, used: 1 }, 'the next day starts at 0');
      assert.equal(await store.quotaUsed(a, NEXT_DAY), 1);
    });

    test("quota: many workspaces' counts in one read, in their order; unknown ones and other days are 0", async (t) => {
      const { store, workspace } = await open(t);
      const [a, b, c] = [await workspace(), await workspace(), await workspace()];
      await store.reserveQuota(a, DAY, 5);
      await store.reserveQuota(a, DAY, 5);
      await store.reserveQuota(b, DAY, 5);
      assert.deepEqual(await store.quotaUsedMany([a, b, c], DAY), [2, 1, 0]);
      assert.deepEqual(await store.quotaUsedMany([c, a], DAY), [0, 2]);
      assert.deepEqual(await store.quotaUsedMany([a], NEXT_DAY), [0]);
      assert.deepEqual(await store.quotaUsedMany([], DAY), []);
    });

    test('quota: 200 concurrent reservations against a limit of 50 count exactly 50', async (t) => {
      const { store, workspace } = await open(t);
      const ws = await workspace();
      const results = await Promise.all(Array.from({ length: 200 }, () => store.reserveQuota(ws, DAY, 50)));
      const allowed = results.filter((r) => r.allowed);
      assert.equal(allowed.length, 50);
      assert.deepEqual(
        allowed.map((r) => r.used).sort((x, y) => x - y),
        Array.from({ length: 50 }, (_, i) => i + 1),
        'each count handed out once',
      );
      assert.ok(results.filter((r) => !r.allowed).every((r) => r.used === 50));
      assert.equal(await store.quotaUsed(ws, DAY), 50);
    });
  });
}
