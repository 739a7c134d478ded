import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { LimitStore } from '../src/limits/limit-store.js';
import { BACKENDS, type Harness, NOON, TestClock, freshDatabaseUrl, harness } from './helpers/harness.js';
import { CONTRACT_LIMITS, limitHeaders } from './helpers/limits.js';

/** The contract's limits (§6, CONTRACT_LIMITS), and 30 failed authentications a minute. */
const NEXT_MIDNIGHT = String(Date.parse('2026-01-16T00:00:00.000Z') / 1000);

const get = (h: Harness, key: string, url = '/v1/me') => h.as(key, { method: 'GET', url });
const post = (h: Harness, key: string, name: string) => h.as(key, { method: 'POST', url: '/v1/companies', payload: { name } });

for (const backend of BACKENDS) {
  describe(`limits, in-process store (contract §6) [${backend}]`, () => {
    test('headers on every authenticated response reflect the state after the request', async (t) => {
      const h = await harness(t, backend, { env: CONTRACT_LIMITS, clock: new TestClock(NOON) });
      const ws = await h.workspace('A', 100);
      const first = await get(h, ws.apiKey);
      assert.equal(first.statusCode, 200);
      assert.deepEqual(limitHeaders(first), {
        'x-ratelimit-limit': '20',
        'x-ratelimit-remaining': '19',
        'x-service-quota-limit': '100',
        'x-service-quota-remaining': '99',
        'x-service-quota-reset': NEXT_MIDNIGHT,
      });
      const write = await post(h, ws.apiKey, 'Acme');
      assert.deepEqual(limitHeaders(write), {
        'x-ratelimit-limit': '5',
        'x-ratelimit-remaining': '4',
        'x-service-quota-limit': '100',
        'x-service-quota-remaining': '98',
        'x-service-quota-reset': NEXT_MIDNIGHT,
      });
      const missing = await get(h, ws.apiKey, '/v1/clients/3f1c2b4a-5d6e-4f70-8a9b-0c1d2e3f4a5b');
      assert.equal(missing.statusCode, 404);
      assert.deepEqual(
        limitHeaders(missing),
        {
          'x-ratelimit-limit': '20',
          'x-ratelimit-remaining': '18',
          'x-service-quota-limit': '100',
          'x-service-quota-remaining': '98',
          'x-service-quota-reset': NEXT_MIDNIGHT,
        },
        'a 404 is not counted',
      );
      const invalid = await post(h, ws.apiKey, '');
      assert.equal(invalid.statusCode, 400);
      assert.equal(limitHeaders(invalid)['x-service-quota-remaining'], '98', 'a 400 is not counted');
      assert.equal(limitHeaders(invalid)['x-ratelimit-remaining'], '3');
      const unauthenticated = await get(h, 'ppk_nope');
      assert.deepEqual(limitHeaders(unauthenticated), {}, 'no limit headers without a principal');
    });

    test('burst: GET bucket of 20 refilling at 100/s; empty is 429 rate_limit_exceeded with Retry-After', async (t) => {
      const h = await harness(t, backend, { env: CONTRACT_LIMITS, clock: new TestClock(NOON) });
      const ws = await h.workspace();
      for (let i = 19; i >= 0; i--) assert.equal(limitHeaders(await get(h, ws.apiKey))['x-ratelimit-remaining'], String(i));
      const limited = await get(h, ws.apiKey);
      assert.equal(limited.statusCode, 429);
      assert.deepEqual(limited.json(), {
        code: 'rate_limit_exceeded',
        message: 'Too many requests; retry after the Retry-After delay.',
        data: null,
      });
      assert.deepEqual(limitHeaders(limited), {
        'x-ratelimit-limit': '20',
        'x-ratelimit-remaining': '0',
        'x-service-quota-limit': '2000',
        'x-service-quota-remaining': '1980',
        'x-service-quota-reset': NEXT_MIDNIGHT,
        'retry-after': '1',
      });
      h.clock.advance(10); // 100/s: one token back after 10 ms
      assert.equal((await get(h, ws.apiKey)).statusCode, 200);
      assert.equal((await get(h, ws.apiKey)).statusCode, 429);
      h.clock.advance(1000);
      assert.equal(limitHeaders(await get(h, ws.apiKey))['x-ratelimit-remaining'], '19', 'refilled to capacity, not beyond');
    });

    test('burst: writes have their own bucket of 5 at 20/s; classes and keys do not share', async (t) => {
      const h = await harness(t, backend, { env: CONTRACT_LIMITS, clock: new TestClock(NOON) });
      const ws = await h.workspace();
      const other = await h.appKey(ws.workspaceId, '1d7f5c1e-0b1a-4c4e-8f7e-5b9a2c3d4e5f');
      for (let i = 0; i < 5; i++) assert.equal((await post(h, ws.apiKey, `C${i}`)).statusCode, 200);
      const limited = await post(h, ws.apiKey, 'C5');
      assert.equal(limited.statusCode, 429);
      assert.equal(limited.headers['retry-after'], '1');
      assert.equal(limited.headers['x-ratelimit-limit'], '5');
      assert.equal((await get(h, ws.apiKey)).statusCode, 200, 'GETs use another bucket');
      assert.equal((await post(h, other.apiKey, 'C6')).statusCode, 200, 'another key has its own bucket');
      h.clock.advance(49);
      assert.equal((await post(h, ws.apiKey, 'C7')).statusCode, 429, 'not yet a whole token at 49 ms');
      h.clock.advance(1);
      assert.equal((await post(h, ws.apiKey, 'C8')).statusCode, 200, 'one token after 50 ms');
    });

    test('quota: only 2xx count; exhausted is 429 {"error":"quota limit reached"}; the window rolls at UTC midnight', async (t) => {
      const clock = new TestClock(Date.parse('2026-01-15T23:59:59.000Z'));
      const h = await harness(t, backend, { clock });
      const ws = await h.workspace('Q', 3);
      for (const remaining of ['2', '1']) assert.equal((await get(h, ws.apiKey)).headers['x-service-quota-remaining'], remaining);
      assert.equal((await get(h, ws.apiKey, '/v1/companies/nope')).headers['x-service-quota-remaining'], '1');
      assert.equal((await get(h, ws.apiKey)).headers['x-service-quota-remaining'], '0');
      const exhausted = await get(h, ws.apiKey);
      assert.equal(exhausted.statusCode, 429);
      assert.equal(exhausted.body, '{"error":"quota limit reached"}');
      assert.match(String(exhausted.headers['content-type']), /^application\/json/);
      assert.equal(exhausted.headers['x-service-quota-remaining'], '0');
      assert.equal(exhausted.headers['x-service-quota-reset'], NEXT_MIDNIGHT);
      assert.equal(exhausted.headers['retry-after'], undefined);
      const other = await h.workspace('Other', 3);
      assert.equal((await get(h, other.apiKey)).statusCode, 200, 'another workspace has its own count');
      clock.advance(1000); // 00:00:00 UTC
      const nextDay = await get(h, ws.apiKey);
      assert.equal(nextDay.statusCode, 200);
      assert.equal(nextDay.headers['x-service-quota-remaining'], '2');
      assert.equal(nextDay.headers['x-service-quota-reset'], String(Date.parse('2026-01-17T00:00:00.000Z') / 1000));
    });

    test('quota is exact under concurrency: 200 concurrent requests with quota 50 yield exactly 50 counted 2xx', async (t) => {
      const h = await harness(t, backend);
      const ws = await h.workspace('Busy', 50);
      const responses = await Promise.all(
        Array.from({ length: 200 }, (_, i) => (i % 4 === 0 ? post(h, ws.apiKey, `Co ${i}`) : get(h, ws.apiKey))),
      );
      const statuses = responses.map((r) => r.statusCode);
      assert.equal(statuses.filter((s) => s === 200).length, 50);
      assert.equal(statuses.filter((s) => s === 429).length, 150);
      assert.ok(responses.filter((r) => r.statusCode === 429).every((r) => r.body === '{"error":"quota limit reached"}'));
      assert.equal((await get(h, ws.apiKey)).headers['x-service-quota-remaining'], '0');
    });

    test('a restart keeps the day’s count', async (t) => {
      const databaseUrl = await freshDatabaseUrl(t, backend, { sqliteFile: true });
      const clock = new TestClock(NOON);
      const first = await harness(t, backend, { databaseUrl, clock });
      const ws = await first.workspace('R', 10);
      for (let i = 0; i < 4; i++) await get(first, ws.apiKey);
      await first.app.close();
      const second = await harness(t, backend, { databaseUrl, clock });
      assert.equal((await get(second, ws.apiKey)).headers['x-service-quota-remaining'], '5');
    });

    test('failed authentication is limited per client IP: 30 a minute, then 429 with Retry-After', async (t) => {
      const h = await harness(t, backend, { clock: new TestClock(NOON) });
      const ws = await h.workspace();
      const from = (ip: string, key: string) =>
        h.app.inject({ method: 'GET', url: '/v1/me', headers: { 'x-api-key': key }, remoteAddress: ip });
      for (let i = 0; i < 30; i++) assert.equal((await from('10.0.0.1', `ppk_${'x'.repeat(59)}`)).statusCode, 401, `failure ${i + 1}`);
      const blocked = await from('10.0.0.1', `ppk_${'x'.repeat(59)}`);
      assert.equal(blocked.statusCode, 429);
      assert.equal(blocked.json().code, 'rate_limit_exceeded');
      assert.equal(blocked.headers['retry-after'], '2', 'one try back after 2 s (30 a minute)');
      assert.equal((await from('10.0.0.1', ws.apiKey)).statusCode, 200, 'a valid key is served even from an IP out of tries');
      assert.equal((await from('10.0.0.1', `ppk_${'y'.repeat(59)}`)).statusCode, 429, 'a wrong one is still refused');
      assert.equal((await from('10.0.0.2', ws.apiKey)).statusCode, 200, 'other IPs are unaffected');
      h.clock.advance(2000);
      assert.equal((await from('10.0.0.1', ws.apiKey)).statusCode, 200, 'a valid key after the wait');
    });

    test('limit state unavailable (a store with no stand-in): 503 unavailable, never unlimited; readiness is the database’s', async (t) => {
      const down = () => Promise.reject(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), { code: 'ECONNREFUSED' }));
      const unreachable: LimitStore = {
        admit: down,
        bucket: down,
        refund: down,
        reserveQuota: down,
        releaseQuota: down,
        quotaUsed: down,
        quotaUsedMany: down,
        ping: down,
        close: async () => {},
      };
      const h = await harness(t, backend, { limitStore: unreachable });
      const ws = await h.workspace();
      const res = await get(h, ws.apiKey);
      assert.equal(res.statusCode, 503);
      assert.deepEqual(res.json(), { code: 'unavailable', message: 'Limit state is unavailable; retry shortly.', data: null });
      assert.equal(res.headers['retry-after'], '1');
      assert.equal((await h.app.inject('/readyz')).statusCode, 200);
    });
  });
}
