import type { Database } from '../../../db/database.js';
import { unitOfWork } from '../../../db/unit-of-work.js';
import type { Caller } from '../../../lib/caller.js';
import { isoAt } from '../../../lib/clock.js';
import { credentialsChanged } from '../../../lib/credential-cache.js';
import { errors } from '../../../lib/errors.js';
import { type PaymentProcessor, runDueUntil } from '../billing/index.js';
import { findClock, findClockForUpdate, setClockOffset } from '../workspaces/index.js';
import { MAX_ADVANCE_SECONDS, type TestClock, type TestClockAdvance } from './test-clocks.schemas.js';

const notASandbox = () =>
  errors.notFoundBecause('This workspace is not a sandbox: it has no test clock (a sandbox is created with sandbox: true).');

const clockAt = (workspaceId: string, serverNow: number, offsetMs: number): TestClock => ({
  object: 'testClock',
  workspaceId,
  time: isoAt(serverNow + offsetMs),
  aheadBySeconds: Math.floor(offsetMs / 1000),
});

/** The sandbox's clock; a production workspace has none (404). `serverNow`: the server's time, ms. */
export async function getTestClock(database: Database, caller: Caller, serverNow: number): Promise<TestClock> {
  const clock = await findClock(database.db, caller.access.workspaceId);
  if (!clock?.sandbox) throw notASandbox();
  return clockAt(caller.access.workspaceId, serverNow, clock.offsetMs);
}

/**
 * Moves a sandbox's clock forward (never back) and runs what falls due meanwhile, each at its own time: periods
 * billed, invoices charged, failed charges retried. Session and bearer tokens expire and the daily quota's day
 * turns on the workspace's time, so they follow too (in this process at once; in others within the credential
 * cache's second). Answered once what fell due has run.
 */
export async function advanceTestClock(
  database: Database,
  processor: PaymentProcessor,
  caller: Caller,
  input: TestClockAdvance,
  serverNow: number,
): Promise<TestClock> {
  const workspaceId = caller.access.workspaceId;
  const target = await unitOfWork(
    database,
    async (work) => {
      const clock = await findClockForUpdate(work, caller.access);
      if (!clock?.sandbox) throw notASandbox();
      const current = serverNow + clock.offsetMs;
      const to = input.to === undefined ? current + (input.bySeconds ?? 0) * 1000 : Date.parse(input.to);
      if (input.to !== undefined && to <= current)
        throw errors.invalidField('body.to', `must be later than the clock's time (${isoAt(current)}): a clock never moves back`);
      if (to - current > MAX_ADVANCE_SECONDS * 1000) throw errors.invalidField('body.to', 'is more than ten years ahead of the clock');
      setClockOffset(work, caller.access, to - serverNow, isoAt(serverNow));
      work.onCommit(() => credentialsChanged(database));
      return to;
    },
    { transaction: true },
  );
  await runDueUntil(database, processor, workspaceId, target);
  return clockAt(workspaceId, serverNow, target - serverNow);
}
