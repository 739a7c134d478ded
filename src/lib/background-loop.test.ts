// BackgroundLoop: the first round runs once its owner is constructed (a round reading the owner's
// `loop` field failed on every server start before), rounds never overlap, close waits for the running one.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setImmediate as tick } from 'node:timers/promises';
import { BackgroundLoop } from './background-loop.js';

class Owner {
  readonly loop: BackgroundLoop;
  rounds = 0;
  readonly errors: unknown[] = [];

  constructor() {
    this.loop = new BackgroundLoop(
      () => this.round(),
      60_000,
      (error) => this.errors.push(error),
    );
  }

  private async round() {
    if (this.loop === undefined) throw new Error('the first round ran before its owner was constructed');
    this.rounds++;
    return false;
  }
}

test('the first round sees its owner whole, with no error', async () => {
  const owner = new Owner();
  await tick();
  assert.deepEqual(owner.errors, []);
  assert.equal(owner.rounds, 1);
  await owner.loop.close();
});

test('a wake during a round runs one more round after it, not two at once; close waits for the running round', async () => {
  let running = 0;
  let most = 0;
  let rounds = 0;
  let release: () => void = () => {};
  const loop = new BackgroundLoop(
    async () => {
      running++;
      most = Math.max(most, running);
      await new Promise<void>((resolve) => (release = resolve));
      running--;
      rounds++;
      return false;
    },
    60_000,
    (error) => assert.fail(String(error)),
  );
  await tick(); // the first round is running
  loop.wake();
  loop.wake();
  release();
  await tick();
  await tick();
  release(); // the one extra round the two wakes asked for
  const closed = loop.close();
  await closed;
  assert.equal(rounds, 2);
  assert.equal(most, 1);
});

test('rounds start at least minGapMs apart: the wakes within the gap make one round after it', async () => {
  const starts: number[] = [];
  const loop = new BackgroundLoop(
    async () => {
      starts.push(performance.now());
      return false;
    },
    60_000,
    (error) => assert.fail(String(error)),
    1,
    50,
  );
  await tick(); // the first round, at once
  for (let i = 0; i < 10; i++) loop.wake();
  await new Promise((resolve) => setTimeout(resolve, 120));
  await loop.close();
  const [first = 0, second = 0] = starts;
  assert.equal(starts.length, 2);
  assert.ok(second - first >= 49, `the second round started ${second - first} ms after the first`);
});
