// Rule (issue 31, point 4): Redis is not a single point of failure. A Redis this test started on a port of its
// own is killed mid-load: every request is still answered (no 5xx), /readyz stays 200, the process limits on
// its own (portal_limit_state_shared 0); when a Redis answers there again, the units counted meanwhile are
// added to its counts and counting is shared again.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { heldWithin } from './helpers/eventually.js';
import { TEST_ADMIN_TOKEN } from './helpers/factories.js';
import { adminHarness } from './helpers/harness.js';
import { hasRedisServer as hasRedis, killRedis as kill, startRedis } from './helpers/redis.js';
import { freePort } from './helpers/server.js';

test('Redis killed mid-load: requests keep being served, readiness stays up, shared counting resumes after', {
  skip: !hasRedis && 'redis-server is not installed',
}, async (t) => {
  const port = await freePort();
  let redis = await startRedis(port);
  t.after(() => kill(redis));
  const h = await adminHarness(t, 'sqlite', {
    webhooks: false,
    subscriptionPollMs: false,
    env: { REDIS_URL: `redis://127.0.0.1:${port}`, REDIS_KEY_PREFIX: 'failover-test:' },
  });
  const ws = await h.workspace();
  const day = new Date(h.clock.now()).toISOString().slice(0, 10);
  const me = () => h.as(ws.apiKey, { method: 'GET', url: '/v1/me' });
  const shared = async () => {
    const text = (await h.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } })).body;
    return /^portal_limit_state_shared (\d)$/m.exec(text)?.[1];
  };

  for (let i = 0; i < 3; i++) assert.equal((await me()).statusCode, 200);
  assert.equal(await h.app.ctx.limitStore.quotaUsed(ws.workspaceId, day), 3, 'counted in Redis');
  assert.equal(await shared(), '1');

  // Killed while requests are on their way: each is answered, by Redis or by this process's own state.
  const during = Array.from({ length: 20 }, () => me());
  await kill(redis);
  const statuses = [...(await Promise.all(during)), ...(await Promise.all(Array.from({ length: 20 }, () => me())))].map(
    (r) => r.statusCode,
  );
  assert.deepEqual(statuses, Array(40).fill(200), 'no 5xx');
  const afterKill = await me();
  assert.equal(afterKill.headers['x-service-quota-remaining'], String(2000 - 44), 'limited on its own, from the last count Redis gave');
  assert.equal((await h.app.inject('/readyz')).statusCode, 200, 'readiness does not depend on Redis');
  assert.equal(await shared(), '0');

  // A Redis answers there again (empty: its counts went with the old one).
  redis = await startRedis(port);
  await heldWithin(10_000, 'counting is shared again', async () => (await shared()) === '1');
  const counted = await h.app.ctx.limitStore.quotaUsed(ws.workspaceId, day);
  // What this process counted beyond the last count Redis gave it: 41, less those of the 20 in flight that Redis
  // counted before it died (their units went with it, as the 3 before did).
  assert.ok(counted >= 21 && counted <= 41, `the units counted during the outage were added to Redis's count (${counted})`);
  assert.equal((await me()).statusCode, 200);
  assert.equal(await h.app.ctx.limitStore.quotaUsed(ws.workspaceId, day), counted + 1, 'and new requests count there');
});
