// Contract §6 across processes: two `portal serve` processes sharing one PostgreSQL schema and one Redis
// never count more than a workspace's daily quota between them, and see a revoked key at once.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { type TestContext, test } from 'node:test';
import { promisify } from 'node:util';
import { freshDatabaseUrl } from './helpers/harness.js';
import { httpGet as get, serve, stop } from './helpers/server.js';
import { heldWithin } from './helpers/eventually.js';
import { redisPrefixFor } from './helpers/redis.js';
import { present } from './helpers/present.js';

const postgresUrl = process.env.PORTAL_TEST_POSTGRES_URL;
const redisUrl = process.env.PORTAL_TEST_REDIS_URL;
const skip = !postgresUrl ? 'PORTAL_TEST_POSTGRES_URL is not set' : !redisUrl ? 'PORTAL_TEST_REDIS_URL is not set' : false;
const run = promisify(execFile);

/** `portal … --json` against the database; its one JSON object. */
async function portal(env: Record<string, string>, ...args: string[]) {
  const { stdout } = await run(process.execPath, ['bin/portal.js', ...args, '--json'], {
    env: { ...process.env, ...env },
    timeout: 30_000,
  });
  return JSON.parse(stdout);
}

/** Two servers on one fresh PostgreSQL schema and one Redis prefix (deleted afterwards). */
async function twoServers(t: TestContext) {
  const databaseUrl = await freshDatabaseUrl(t, 'postgres');
  const prefix = redisPrefixFor(t);
  const env = {
    DATABASE_URL: databaseUrl,
    REDIS_URL: present(redisUrl, 'PORTAL_TEST_REDIS_URL'),
    REDIS_KEY_PREFIX: prefix,
    // Bursts far above 200 requests, so only the daily quota limits.
    RATE_LIMIT_GET_CAPACITY: '100000',
    RATE_LIMIT_GET_REFILL: '100000',
  };
  return { env, start: () => Promise.all([serve(env), serve(env)]) };
}

test('two processes sharing Redis count exactly the daily quota between them', { skip, timeout: 120_000 }, async (t) => {
  const { env, start } = await twoServers(t);
  // Created (and migrated) before the servers start, so they neither migrate concurrently nor make a first workspace.
  const ws = await portal(env, 'workspaces', 'create', '--name', 'M', '--daily-quota', '50');
  const servers = await start();
  t.after(() => Promise.all(servers.map((s) => stop(s.child))));

  const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => get(servers[i % 2].base, '/v1/me', ws.apiKey)));
  const ok = answers.filter((a) => a.status === 200);
  const refused = answers.filter((a) => a.status !== 200);
  assert.equal(ok.length, 50, `statuses: ${JSON.stringify(answers.map((a) => a.status))}`);
  assert.equal(refused.length, 150);
  for (const a of refused) {
    assert.equal(a.status, 429);
    assert.equal(a.body, '{"error":"quota limit reached"}');
    assert.equal(a.headers['x-service-quota-remaining'], '0');
  }
  // Each counted request saw its own count: the shared counter handed every value out once.
  assert.deepEqual(
    ok.map((a) => Number(a.headers['x-service-quota-remaining'])).sort((x, y) => x - y),
    Array.from({ length: 50 }, (_, i) => i),
  );
  for (const name of [
    'x-service-quota-limit',
    'x-service-quota-remaining',
    'x-service-quota-reset',
    'x-ratelimit-limit',
    'x-ratelimit-remaining',
  ]) {
    assert.ok(
      answers.every((a) => a.headers[name] !== undefined),
      `${name} on every response`,
    );
  }
  assert.ok(answers.every((a) => a.headers['x-service-quota-limit'] === '50'));
  assert.ok(answers.every((a) => a.headers['x-ratelimit-limit'] === '100000'));
});

test('a key revoked with the portal command is refused by both processes within a second (their credential caches)', {
  skip,
  timeout: 120_000,
}, async (t) => {
  const { env, start } = await twoServers(t);
  const ws = await portal(env, 'workspaces', 'create', '--name', 'R');
  const key = await portal(env, 'keys', 'create', '--workspace', ws.workspaceId);
  const servers = await start();
  t.after(() => Promise.all(servers.map((s) => stop(s.child))));

  for (const s of servers) assert.equal((await get(s.base, '/v1/me', key.apiKey)).status, 200, s.output());
  assert.deepEqual(await portal(env, 'keys', 'revoke', '--workspace', ws.workspaceId, '--key-id', key.apiKeyId), {
    apiKeyId: key.apiKeyId,
    revoked: true,
  });
  for (const s of servers)
    await heldWithin(1000, 'the revoked key is refused', async () => (await get(s.base, '/v1/me', key.apiKey)).status === 401);
  for (const s of servers) assert.equal((await get(s.base, '/v1/me', ws.apiKey)).status, 200, 'the workspace key still works');
});
