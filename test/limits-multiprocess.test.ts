// Across processes: two `portal serve` processes sharing one PostgreSQL schema, one Redis and one S3 bucket
// never count more than a workspace's daily quota between them (contract §6), see a revoked key at once, and
// serve the same files' content.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { type TestContext, test } from 'node:test';
import { promisify } from 'node:util';
import { freshDatabaseUrl } from './helpers/harness.js';
import { httpGet as get, serve, stop } from './helpers/server.js';
import { heldWithin } from './helpers/eventually.js';
import { redisPrefixFor } from './helpers/redis.js';
import { present } from './helpers/present.js';
import { fileStoreEnv } from './helpers/s3.js';

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

test('files on the S3 store: uploaded through one process, downloaded byte-identical through the other', {
  skip,
  timeout: 120_000,
}, async (t) => {
  const { env: shared } = await twoServers(t);
  const env = { ...shared, ...(await fileStoreEnv('s3')) };
  const ws = await portal(env, 'workspaces', 'create', '--name', 'Files');
  const [a, b] = await Promise.all([serve(env), serve(env)]);
  t.after(() => Promise.all([a, b].map((s) => stop(s.child))));
  const call = async (base: string, method: string, path: string, body?: object) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { 'x-api-key': ws.apiKey, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    assert.equal(res.status, 200, `${method} ${path}: ${res.status}`);
    return res;
  };
  const company = await (await call(a.base, 'POST', '/v1/companies', { name: 'Shared Co' })).json();
  const channel = await (await call(a.base, 'POST', '/v1/channels/files', { membershipType: 'company', companyId: company.id })).json();
  const file = await (await call(a.base, 'POST', '/v1/files/file', { channelId: channel.id, path: 'report.bin' })).json();
  const bytes = randomBytes(3 * 1024 * 1024 + 11);
  const upload = new URL(file.uploadUrl); // built on PORTAL_URL: sent to process A's own address
  const put = await fetch(`${a.base}${upload.pathname}${upload.search}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/octet-stream' },
    body: bytes,
  });
  assert.equal(put.status, 200, await put.text());
  const downloaded = Buffer.from(await (await call(b.base, 'GET', `/v1/files/${file.id}/download`)).arrayBuffer());
  assert.equal(downloaded.length, bytes.length);
  assert.ok(downloaded.equals(bytes), 'byte-identical through the other process');
});
