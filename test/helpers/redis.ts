import { randomBytes } from 'node:crypto';
import type { TestContext } from 'node:test';
import { Redis } from 'ioredis';
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
