import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Polls `check` every 20 ms until it holds and returns how long that took (ms); fails when it still
 * does not hold after `limitMs`. For changes another process makes, which a server sees within a
 * bounded time (a revoked credential: within its credential cache's 1 s).
 */
export async function heldWithin(limitMs: number, what: string, check: () => Promise<boolean>): Promise<number> {
  const start = performance.now();
  for (;;) {
    if (await check()) return performance.now() - start;
    const elapsed = performance.now() - start;
    assert.ok(elapsed < limitMs, `${what}: still not true after ${Math.round(elapsed)} ms (limit ${limitMs} ms)`);
    await sleep(20);
  }
}
