import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../../../db/database.js';
import { busyRetry, isUniqueViolation } from '../../../db/errors.js';
import { unitOfWork } from '../../../db/unit-of-work.js';
import { LoopWorker } from '../../../lib/background-loop.js';
import { systemCaller } from '../../../lib/caller.js';
import { type Clock, isoAt } from '../../../lib/clock.js';
import { addInvoice } from './invoices.service.js';
import type { PaymentProcessor } from './payment-processor.js';
import { advancedClocks, nextDueOf } from './payments.repository.js';
import { chargeDue, settleStaleRefund } from './payments.service.js';
import { advanceSubscription, claimMostOverdue } from './subscriptions.repository.js';
import { nextPeriod } from './subscriptions.service.js';

/** Steps per round at most: a server that was stopped for long catches up over a few rounds. */
const MAX_STEPS_PER_ROUND = 500;
/** Steps one test clock advance runs before it answers; what is left is the worker's. */
const MAX_STEPS_PER_ADVANCE = 2000;

/** Whose time a step runs on: every workspace on the server's (workspaceId null), or one sandbox at its clock's. */
interface ClockScope {
  workspaceId: string | null;
  /** ms */
  now: number;
}

/**
 * Bills the most overdue period of one subscription of the scope; false when none is due. Its invoice (billingReason
 * subscriptionCycle, dated the period's start) is created in one transaction with the subscription's advance. A
 * period is billed once: the subscription row is claimed (`FOR UPDATE SKIP LOCKED` on PostgreSQL, so two processes
 * never take the same one), and the unique key (subscription, period) stops any second invoice, across processes
 * and restarts. A past-due or unpaid subscription keeps its status while it bills.
 */
async function billDuePeriod(database: Database, scope: ClockScope): Promise<boolean> {
  try {
    return await unitOfWork(
      database,
      async (work) => {
        const due = await claimMostOverdue(work, database.dialect, scope);
        if (!due) return false;
        const k = due.periodsBilled;
        const start = nextPeriod(due.schedule, k);
        const following = nextPeriod(due.schedule, k + 1);
        const system = systemCaller(due.workspaceId, scope.now);
        if (start !== null) {
          addInvoice(work, system, {
            billed: due.billed,
            terms: due.terms,
            status: 'open',
            billingReason: 'subscriptionCycle',
            collectionMethod: due.collectionMethod,
            at: start,
            subscription: { id: due.id, periodIndex: k },
          });
        }
        const billing = due.status === 'pastDue' || due.status === 'unpaid' ? due.status : 'active';
        advanceSubscription(work, system.access, due.id, k, {
          periodsBilled: start === null ? k : k + 1,
          status: start === null || following === null ? 'ended' : billing,
          nextPeriodAt: start === null || following === null ? null : isoAt(following),
          at: isoAt(scope.now),
        });
        return true;
      },
      { transaction: true },
    );
  } catch (error) {
    // Another process billed this period first: nothing to do (its transaction advanced the subscription).
    if (isUniqueViolation(error)) return true;
    throw error;
  }
}

/** One step of time-driven billing in a scope: a period billed, else a charge made, else a stale refund finished. False when nothing is due. */
const stepDue = async (database: Database, processor: PaymentProcessor, scope: ClockScope) =>
  (await billDuePeriod(database, scope)) ||
  (await chargeDue(database, processor, scope)) ||
  (await settleStaleRefund(database, processor, scope));

/**
 * Runs what falls due in a sandbox up to `target` (ms, its clock's new time), in the order it falls due and each at
 * its own time: periods billed, their invoices charged, failed charges retried, as if the time had passed. At most
 * MAX_STEPS_PER_ADVANCE steps; the worker does the rest.
 */
export async function runDueUntil(database: Database, processor: PaymentProcessor, workspaceId: string, target: number): Promise<void> {
  const limit = isoAt(target);
  for (let i = 0; i < MAX_STEPS_PER_ADVANCE; i++) {
    const due = await nextDueOf(database.db, workspaceId);
    if (due === undefined || due > limit || !(await stepDue(database, processor, { workspaceId, now: Date.parse(due) }))) return;
  }
}

/**
 * Subscriptions bill themselves and automatic charges are made and retried as they fall due: on the server's time
 * for every workspace, and on its test clock's time for each sandbox whose clock moved.
 */
export class BillingWorker extends LoopWorker {
  constructor(
    private readonly database: Database,
    private readonly processor: PaymentProcessor,
    private readonly clock: Clock,
    log: FastifyBaseLogger,
    pollMs = 10_000,
  ) {
    super({
      pollMs,
      maxSteps: MAX_STEPS_PER_ROUND,
      onError: (error) => log.error({ err: error }, 'billing: round failed'),
      busy: busyRetry(log, 'billing'),
    });
  }

  protected async step(): Promise<boolean> {
    const now = this.clock.now();
    if (await stepDue(this.database, this.processor, { workspaceId: null, now })) return true;
    for (const { workspaceId, offsetMs } of await advancedClocks(this.database.db)) {
      if (await stepDue(this.database, this.processor, { workspaceId, now: now + offsetMs })) return true;
    }
    return false;
  }
}
