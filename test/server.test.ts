import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

/** Starts `portal serve` on a free port; resolves once it listens, with its stdout so far. */
function serve(databaseUrl: string): Promise<{ child: ChildProcess; base: string; output: () => string; exited: Promise<number | null> }> {
  const child = spawn(process.execPath, ['bin/portal.js', 'serve'], {
    env: { ...process.env, DATABASE_URL: databaseUrl, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', RATE_LIMIT_GET_CAPACITY: '1000' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (chunk) => (out += chunk));
  child.stderr!.on('data', (chunk) => (out += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not start in 20 s:\n${out}`));
    }, 20_000);
    const check = () => {
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (!match) return;
      clearTimeout(timer);
      child.stdout!.off('data', check);
      resolve({ child, base: match[1], output: () => out, exited });
    };
    child.stdout!.on('data', check);
    child.once('exit', () => reject(new Error(`server exited early:\n${out}`)));
  });
}

/** One request on its own connection; resolves with the status, or the socket error's code. */
function get(base: string, path: string, apiKey: string): Promise<number | string> {
  return new Promise((resolve) => {
    const req = request(`${base}${path}`, { headers: { 'x-api-key': apiKey }, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode!));
      res.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? 'error'));
    });
    req.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? 'error'));
    req.end();
  });
}

test('first start creates a workspace and prints its key; SIGTERM drains in-flight requests and exits 0; a restart keeps the data', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'portal-serve-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const url = `sqlite:${join(dir, 'portal.db')}`;

  const first = await serve(url);
  t.after(() => first.child.kill('SIGKILL'));
  const key = /\n {2}(ppk_[A-Za-z0-9_-]{59})\n/.exec(first.output())?.[1];
  assert.ok(key, `a ready-to-use key is printed:\n${first.output()}`);
  assert.equal(await get(first.base, '/v1/me', key), 200);

  // 30 requests on their own connections, then SIGTERM while they are being answered (SHUTDOWN_GRACE_MS 1000).
  const inFlight = Array.from({ length: 30 }, () => get(first.base, '/v1/me', key));
  await new Promise((r) => setTimeout(r, 5));
  first.child.kill('SIGTERM');
  assert.deepEqual(await Promise.all(inFlight), Array(30).fill(200), 'every request in flight is answered');
  assert.equal(await get(first.base, '/readyz', key), 503, 'readiness fails while draining');
  assert.equal(await first.exited, 0, first.output());
  assert.doesNotMatch(first.output().split(key).slice(1).join(''), new RegExp(key), 'the key appears once, in the banner only');

  const second = await serve(url);
  t.after(() => second.child.kill('SIGKILL'));
  assert.doesNotMatch(second.output(), /Created workspace/, 'no second workspace on a non-empty database');
  assert.equal(await get(second.base, '/v1/me', key), 200);
  second.child.kill('SIGTERM');
  assert.equal(await second.exited, 0);
});
