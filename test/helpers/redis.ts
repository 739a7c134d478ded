import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { TestContext } from 'node:test';
import { Redis } from 'ioredis';
import { heldWithin } from './eventually.js';
import { present } from './present.js';

/** The test Redis that `npm test` found answering, if any. */
export const testRedisUrl = process.env.PORTAL_TEST_REDIS_URL;

/** A random key prefix for one test; its keys are deleted after the test. */
export function redisPrefixFor(t: TestContext): string {
  const prefix = `portal-test:${randomBytes(6).toString('hex')}:`;
  t.after(async () => {
    const admin = new Redis(present(testRedisUrl, 'PORTAL_TEST_REDIS_URL'));
    const keys = await admin.keys(`${prefix}*`);
    if (keys.length > 0) await admin.del(...keys);
    await admin.quit();
  });
  return prefix;
}

/** Whether `redis-server` is installed: a test may then start (and kill) a Redis of its own. */
export const hasRedisServer = (() => {
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** A Redis of the test's own on `port`, nothing saved; resolves once it accepts connections. */
export async function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: 'pipe',
  });
  let out = '';
  child.stdout?.on('data', (chunk) => (out += chunk));
  await heldWithin(5000, `redis-server on ${port} is ready`, async () => out.includes('Ready to accept connections'));
  return child;
}

/** Kills a Redis started by startRedis (SIGKILL: as a crash), once it has exited. */
export const killRedis = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
