import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../../db/database.js';
import { isUniqueViolation } from '../../db/errors.js';
import { unitOfWork } from '../../db/unit-of-work.js';
import { LoopWorker } from '../../lib/background-loop.js';
import { systemCaller } from '../../lib/caller.js';
import { type Clock, isoAt } from '../../lib/clock.js';
import { addInvoice } from './invoices.service.js';
import { advanceSubscription, claimMostOverdue } from './subscriptions.repository.js';
import { nextPeriod } from './subscriptions.service.js';

/** Periods billed per round at most: a server that was stopped for long catches up over a few rounds. */
const MAX_PERIODS_PER_ROUND = 500;

/**
 * Subscriptions bill themselves: each due period's invoice (billingReason subscriptionCycle, dated the
 * period's start) is created in one transaction with the subscription's advance. A period is billed
 * once: the subscription row is claimed (`FOR UPDATE SKIP LOCKED` on PostgreSQL, so two processes never
 * take the same one), and the unique key (subscription, period) stops any second invoice, across
 * processes and restarts. Periods missed while the server was stopped are billed when it starts.
 */
export class SubscriptionBiller extends LoopWorker {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    log: FastifyBaseLogger,
    pollMs = 10_000,
  ) {
    super({
      pollMs,
      maxSteps: MAX_PERIODS_PER_ROUND,
      onError: (error) => log.error({ err: error }, 'subscriptions: billing round failed'),
    });
  }

  /** Bills the most overdue period of one subscription; false when none is due. */
  protected async step(): Promise<boolean> {
    const now = this.clock.now();
    try {
      return await unitOfWork(
        this.database,
        async (work) => {
          const due = await claimMostOverdue(work, this.database.dialect, now);
          if (!due) return false;
          const k = due.periodsBilled;
          const start = nextPeriod(due.schedule, k);
          const following = nextPeriod(due.schedule, k + 1);
          const system = systemCaller(due.workspaceId, now);
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
          advanceSubscription(work, system.access, due.id, k, {
            periodsBilled: start === null ? k : k + 1,
            status: start === null || following === null ? 'ended' : 'active',
            nextPeriodAt: start === null || following === null ? null : isoAt(following),
            at: isoAt(now),
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
}
