import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { test } from 'node:test';
import { BACKENDS, freshDatabaseUrl, openDatabase } from './helpers/harness.js';
import { httpGet, serve, stop } from './helpers/server.js';

/** The status of a GET on its own connection. */
const get = (base: string, path: string, apiKey: string) => httpGet(base, path, apiKey).then((answer) => answer.status);

test('first start creates a workspace and prints its key; SIGTERM drains in-flight requests and exits 0; a restart keeps the data', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'portal-serve-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const url = `sqlite:${join(dir, 'portal.db')}`;

  const first = await serve({ DATABASE_URL: url, RATE_LIMIT_GET_CAPACITY: '1000' });
  t.after(() => first.child.kill('SIGKILL'));
  const key = /\n {2}(ppk_[A-Za-z0-9_-]{59})\n/.exec(first.output())?.[1];
  assert.ok(key, `a ready-to-use key is printed:\n${first.output()}`);
  assert.ok(!first.stdout().includes(key), 'the key is printed on stderr, never on stdout where the JSON logs go');
  assert.equal(await get(first.base, '/v1/me', key), 200);

  // 30 requests on their own connections, then SIGTERM while they are being answered (SHUTDOWN_GRACE_MS 1000).
  const inFlight = Array.from({ length: 30 }, () => get(first.base, '/v1/me', key));
  await new Promise((r) => setTimeout(r, 5));
  first.child.kill('SIGTERM');
  assert.deepEqual(await Promise.all(inFlight), Array(30).fill(200), 'every request in flight is answered');
  assert.equal(await get(first.base, '/readyz', key), 503, 'readiness fails while draining');
  assert.equal(await first.exited, 0, first.output());
  assert.doesNotMatch(first.output().split(key).slice(1).join(''), new RegExp(key), 'the key appears once, in the banner only');

  const second = await serve({ DATABASE_URL: url, RATE_LIMIT_GET_CAPACITY: '1000' });
  t.after(() => second.child.kill('SIGKILL'));
  assert.doesNotMatch(second.output(), /Created workspace/, 'no second workspace on a non-empty database');
  assert.equal(await get(second.base, '/v1/me', key), 200);
  second.child.kill('SIGTERM');
  assert.equal(await second.exited, 0);
});

// On one SQLite file as on PostgreSQL: the migrations are applied once, under a lock (PostgreSQL's advisory lock,
// SQLite's write lock held from BEGIN IMMEDIATE to the commit), and one first workspace is made.
test('processes started together on an empty database migrate it once and create one first workspace, whichever wins', async (t) => {
  for (const backend of BACKENDS) {
    const url = await freshDatabaseUrl(t, backend, { sqliteFile: true });
    const started = await Promise.allSettled([1, 2, 3].map(() => serve({ DATABASE_URL: url })));
    const servers = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    t.after(() => {
      for (const server of servers) server.child.kill('SIGKILL');
    });
    for (const s of started) if (s.status === 'rejected') assert.fail(`[${backend}] every process starts: ${s.reason}`);
    const keys = servers.flatMap((server) => [...server.output().matchAll(/\n {2}(ppk_[A-Za-z0-9_-]{59})\n/g)].map((m) => m[1]));
    assert.equal(keys.length, 1, `[${backend}] one key printed, by one of the three:\n${servers.map((s) => s.output()).join('\n---\n')}`);
    for (const server of servers) assert.equal(await get(server.base, '/v1/me', keys[0]), 200, `[${backend}] every process serves it`);
    const database = openDatabase(url);
    try {
      const { n } = await database.db
        .selectFrom('workspaces')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow();
      assert.equal(Number(n), 1, `[${backend}] one workspace`);
    } finally {
      await database.close();
    }
    await Promise.all(servers.map((server) => stop(server.child)));
  }
});

// Rule (issue 42, point 13): on a wildcard address (HOST 0.0.0.0 or ::, as in a container) without PORTAL_URL, the
// server's links would be http://0.0.0.0:…: it refuses to start, naming PORTAL_URL, before it listens or migrates.
test('serve on HOST 0.0.0.0 or :: without PORTAL_URL is refused at start, naming PORTAL_URL', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'portal-serve-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  for (const host of ['0.0.0.0', '::']) {
    const env = { ...process.env, DATABASE_URL: `sqlite:${join(dir, 'portal.db')}`, HOST: host, PORT: '0', PORTAL_URL: '' };
    const refused = await promisify(execFile)(process.execPath, ['bin/portal.js', 'serve'], { env, timeout: 20_000 }).then(
      () => ({ code: 0, stdout: '', stderr: '' }),
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
    assert.deepEqual(
      [refused.code, refused.stdout, refused.stderr],
      [
        1,
        '',
        `portal: Invalid configuration:\n  - PORTAL_URL is required when HOST is ${host} (every address): the links this server makes ` +
          '(invites, sign-in and reset links, e-mails, files) need the address people reach it at, e.g. ' +
          'PORTAL_URL=http://127.0.0.1:0 or https://portal.example.com\n',
      ],
    );
  }
});

// Rule (issue 42, point 13): health probes (every few seconds) are not logged at info; other requests are.
test('/healthz and /readyz requests are not logged at info; an API request is', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'portal-serve-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const server = await serve({ DATABASE_URL: `sqlite:${join(dir, 'portal.db')}` });
  t.after(() => server.child.kill('SIGKILL'));
  const key = /\n {2}(ppk_[A-Za-z0-9_-]{59})\n/.exec(server.output())?.[1] ?? '';
  for (let i = 0; i < 3; i++) {
    assert.equal(await get(server.base, '/healthz', ''), 200);
    assert.equal(await get(server.base, '/readyz', ''), 200);
  }
  assert.equal(await get(server.base, '/v1/me', key), 200);
  await stop(server.child);
  const urls = server
    .stdout()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { req?: { url?: string } })
    .flatMap((entry) => (entry.req?.url ? [entry.req.url] : []));
  assert.deepEqual(urls, ['/v1/me'], 'the API request is logged (incoming), the probes are not');
});
