// Scale-out (issue 31): two `portal serve` processes sharing one PostgreSQL schema, one Redis, one S3 bucket and
// one SMTP server make one service. Started together on an empty database they make one first workspace; they
// never count more than a workspace's daily quota between them (contract §6); they see a revoked key at once;
// they serve the same files' content; every acknowledged change's webhook is delivered across a SIGKILL of either;
// a subscription's period is billed once while both run the biller, and across a SIGKILL; an e-mail is sent once.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { type TestContext, test } from 'node:test';
import { promisify } from 'node:util';
import { assertDeliveredOnce, slowCompanyReceiver } from './helpers/deliveries.js';
import { heldWithin } from './helpers/eventually.js';
import { freshDatabaseUrl } from './helpers/harness.js';
import { present } from './helpers/present.js';
import { redisPrefixFor } from './helpers/redis.js';
import { fileStoreEnv } from './helpers/s3.js';
import { type Server, httpGet as get, serve, stop } from './helpers/server.js';
import { smtpServer } from './helpers/smtp.js';

const postgresUrl = process.env.PORTAL_TEST_POSTGRES_URL;
const redisUrl = process.env.PORTAL_TEST_REDIS_URL;
const skip = !postgresUrl ? 'PORTAL_TEST_POSTGRES_URL is not set' : !redisUrl ? 'PORTAL_TEST_REDIS_URL is not set' : false;
const run = promisify(execFile);
const DAY_SECONDS = 86_400;

/** `portal … --json` against the database; its one JSON object. */
async function portal(env: Record<string, string>, ...args: string[]) {
  const { stdout } = await run(process.execPath, ['bin/portal.js', ...args, '--json'], {
    env: { ...process.env, ...env },
    timeout: 30_000,
  });
  return JSON.parse(stdout);
}

/** One JSON request with the key, bounded by 10 s; status and parsed body (undefined when the process is gone). */
async function call(base: string, apiKey: string, method: string, path: string, body?: object) {
  try {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { 'x-api-key': apiKey, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
      signal: AbortSignal.timeout(10_000),
    });
    return { status: res.status, body: await res.json() };
  } catch {
    return { status: 0, body: undefined };
  }
}

/** The call, which must answer 200; its body. */
async function ok(base: string, apiKey: string, method: string, path: string, body?: object) {
  const res = await call(base, apiKey, method, path, body);
  assert.equal(res.status, 200, `${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Two servers on one fresh PostgreSQL schema, one Redis prefix (deleted afterwards), one S3 prefix and one SMTP server. */
async function twoServers(t: TestContext) {
  const smtp = await smtpServer(t);
  const env = {
    DATABASE_URL: await freshDatabaseUrl(t, 'postgres'),
    REDIS_URL: present(redisUrl, 'PORTAL_TEST_REDIS_URL'),
    REDIS_KEY_PREFIX: redisPrefixFor(t),
    ...(await fileStoreEnv('s3')),
    SMTP_URL: smtp.url,
    PORTAL_WEBHOOKS_ALLOW_PRIVATE: '1',
    // Bursts far above what the test sends, so only the daily quota limits.
    RATE_LIMIT_GET_CAPACITY: '100000',
    RATE_LIMIT_GET_REFILL: '100000',
    RATE_LIMIT_WRITE_CAPACITY: '100000',
    RATE_LIMIT_WRITE_REFILL: '100000',
  };
  const servers: Server[] = await Promise.all([serve(env), serve(env)]);
  t.after(() => Promise.all(servers.map((s) => stop(s.child))));
  /** SIGKILLs server i and starts another in its place (on another port). */
  const killAndRestart = async (i: number) => {
    servers[i].child.kill('SIGKILL');
    await servers[i].exited;
    servers[i] = await serve(env);
  };
  return { env, smtp, servers, killAndRestart };
}

test('two processes on PostgreSQL, Redis and S3 make one service', { skip, timeout: 300_000 }, async (t) => {
  const { env, smtp, servers, killAndRestart } = await twoServers(t);
  const workspace = (name: string, ...flags: string[]) => portal(env, 'workspaces', 'create', '--name', name, ...flags);

  await t.test('started together on an empty database, they make one first workspace', () => {
    const created = servers.map((s) => s.output().match(/Created workspace [0-9a-f-]{36}/g) ?? []);
    assert.equal(created.flat().length, 1, servers.map((s) => s.output()).join('\n----\n'));
  });

  await t.test('the daily quota is exact across both', async () => {
    const ws = await workspace('Quota', '--daily-quota', '50');
    const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => get(servers[i % 2].base, '/v1/me', ws.apiKey)));
    const counted = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status !== 200);
    assert.equal(counted.length, 50, `statuses: ${JSON.stringify(answers.map((a) => a.status))}`);
    assert.equal(refused.length, 150);
    for (const a of refused) {
      assert.equal(a.status, 429);
      assert.equal(a.body, '{"error":"quota limit reached"}');
      assert.equal(a.headers['x-service-quota-remaining'], '0');
    }
    // Each counted request saw its own count: the shared counter handed every value out once.
    assert.deepEqual(
      counted.map((a) => Number(a.headers['x-service-quota-remaining'])).sort((x, y) => x - y),
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

  await t.test('a key revoked with the portal command is refused by both within a second (their credential caches)', async () => {
    const ws = await workspace('Revoke');
    const key = await portal(env, 'keys', 'create', '--workspace', ws.workspaceId);
    for (const s of servers) assert.equal((await get(s.base, '/v1/me', key.apiKey)).status, 200, s.output());
    assert.deepEqual(await portal(env, 'keys', 'revoke', '--workspace', ws.workspaceId, '--key-id', key.apiKeyId), {
      apiKeyId: key.apiKeyId,
      revoked: true,
    });
    for (const s of servers)
      await heldWithin(1000, 'the revoked key is refused', async () => (await get(s.base, '/v1/me', key.apiKey)).status === 401);
    for (const s of servers) assert.equal((await get(s.base, '/v1/me', ws.apiKey)).status, 200, 'the workspace key still works');
  });

  await t.test('a file uploaded through one downloads byte-identical through the other (S3)', async () => {
    const { apiKey } = await workspace('Files');
    const [a, b] = servers;
    const company = await ok(a.base, apiKey, 'POST', '/v1/companies', { name: 'Shared Co' });
    const channel = await ok(a.base, apiKey, 'POST', '/v1/channels/files', { membershipType: 'company', companyId: company.id });
    const file = await ok(a.base, apiKey, 'POST', '/v1/files/file', { channelId: channel.id, path: 'report.bin' });
    const bytes = randomBytes(3 * 1024 * 1024 + 11);
    const upload = new URL(file.uploadUrl); // built on PORTAL_URL: sent to process A's own address
    const put = await fetch(`${a.base}${upload.pathname}${upload.search}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/octet-stream' },
      body: bytes,
    });
    assert.equal(put.status, 200, await put.text());
    const download = await fetch(`${b.base}/v1/files/${file.id}/download`, { headers: { 'x-api-key': apiKey } });
    assert.equal(download.status, 200);
    const downloaded = Buffer.from(await download.arrayBuffer());
    assert.equal(downloaded.length, bytes.length);
    assert.ok(downloaded.equals(bytes), 'byte-identical through the other process');
  });

  await t.test("every acknowledged change's webhook is delivered, one webhook-id each, across a SIGKILL of each process", async (st) => {
    const { url: hookUrl, received } = await slowCompanyReceiver(st);
    const { workspaceId, apiKey } = await workspace('Hooks');
    await portal(env, 'webhooks', 'create', '--workspace', workspaceId, '--url', hookUrl, '--events', 'company.created');
    const acknowledged: string[] = [];
    for (const killed of [0, 1]) {
      const created = await Promise.all(
        Array.from({ length: 20 }, (_, i) => call(servers[i % 2].base, apiKey, 'POST', '/v1/companies', { name: `K${killed} C${i}` })),
      );
      for (const res of created) if (res.status === 200) acknowledged.push(res.body.id);
      const seen = received.length;
      await heldWithin(10_000, 'deliveries under way', async () => received.length > seen);
      await killAndRestart(killed);
    }
    assert.equal(acknowledged.length, 40, 'every create acknowledged');
    const repeats = await assertDeliveredOnce(acknowledged, received);
    st.diagnostic(`40 events, ${received.length} requests received (${repeats} repeats)`);
  });

  await t.test('a subscription period is billed once while both run the biller, and across a SIGKILL mid-billing', async (st) => {
    const { apiKey } = await workspace('Billing');
    const client = await ok(servers[0].base, apiKey, 'POST', '/v1/clients', {
      email: 'payer@billing.test',
      givenName: 'Pat',
      familyName: 'Payer',
    });
    // Begun 200 days and an hour ago, daily: periods 0 to 200 are due, 201 each, billed one by one.
    const scheduleStartDate = Math.floor(Date.now() / 1000) - 200 * DAY_SECONDS - 3600;
    const subscriptions: string[] = [];
    for (let i = 0; i < 3; i++) {
      const created = await ok(servers[i % 2].base, apiKey, 'POST', '/v1/subscriptions', {
        clientId: client.id,
        lineItems: [{ amount: 100 + i, quantity: 1 }],
        daysUntilDue: 1,
        interval: 'day',
        scheduleStartDate,
      });
      subscriptions.push(created.id);
    }
    const invoices = async () =>
      ((await call(servers[1].base, apiKey, 'GET', '/v1/invoices?limit=1000')).body?.data ?? []) as Record<string, string>[];
    await heldWithin(20_000, 'billing under way', async () => (await invoices()).length >= 30);
    const atKill = (await invoices()).length;
    await killAndRestart(0);
    const all = 3 * 201;
    await heldWithin(60_000, `${all} periods billed`, async () => (await invoices()).length >= all);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const billed = await invoices();
    assert.equal(billed.length, all, 'no period twice');
    for (const id of subscriptions) {
      const periods = billed.filter((i) => i.subscriptionId === id).map((i) => i.createdAt);
      assert.equal(new Set(periods).size, 201, `subscription ${id}: each of its 201 periods once`);
    }
    assert.equal(new Set(billed.map((i) => i.number)).size, all, 'no number twice');
    st.diagnostic(`${atKill} of ${all} periods billed when process A was killed`);
  });

  await t.test('an e-mail is sent once, whichever process sends it', async () => {
    const { workspaceId, apiKey } = await workspace('Mail');
    const sender = await portal(
      env,
      'internal-users',
      'create',
      '--workspace',
      workspaceId,
      '--email',
      'staff@mail.test',
      '--given-name',
      'Sam',
      '--family-name',
      'Staff',
    );
    const client = await ok(servers[0].base, apiKey, 'POST', '/v1/clients', { email: 'ada@mail.test', givenName: 'Ada', familyName: 'L' });
    const before = smtp.received.length;
    const subjects = Array.from({ length: 20 }, (_, i) => `Notice ${i}`);
    await Promise.all(
      subjects.map((subject, i) =>
        ok(servers[i % 2].base, apiKey, 'POST', '/v1/notifications', {
          senderId: sender.id,
          recipientClientId: client.id,
          deliveryTargets: { email: { subject, header: 'Hello', body: 'News.' } },
        }),
      ),
    );
    const sentSubjects = () => smtp.received.slice(before).map((m) => /^Subject: (.*)\r$/m.exec(m.raw)?.[1]);
    await heldWithin(20_000, 'every e-mail sent', async () => sentSubjects().length >= subjects.length);
    await new Promise((resolve) => setTimeout(resolve, 1000)); // both outboxes polled again meanwhile
    assert.deepEqual(sentSubjects().sort(), [...subjects].sort(), 'each e-mail once');
  });
});
