import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { httpGet, serve } from './helpers/server.js';

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
