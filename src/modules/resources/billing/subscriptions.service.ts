import type { Database } from '../../../db/database.js';
import { listAs } from '../../../db/paging.js';
import { unitOfWork } from '../../../db/unit-of-work.js';
import type { Caller } from '../../../lib/caller.js';
import { isoAt } from '../../../lib/clock.js';
import { type FieldProblem, errors, orNotFound } from '../../../lib/errors.js';
import { recordAudit } from '../../../audit/index.js';
import { newRowId } from '../../../lib/row-id.js';
import { type Cycle, termsOf } from './terms.js';
import { normalInterval, periodStart } from './periods.js';
import * as repo from './subscriptions.repository.js';
import type { Subscription, SubscriptionCreate } from './subscriptions.schemas.js';

const subscriptionSubject = (s: Subscription) => ({ object: 'subscription', id: s.id, data: s, companyId: s.companyId });

/** When period k starts, or null when the schedule (end date, iterations) has no period k. */
export function nextPeriod(schedule: repo.Schedule, k: number) {
  if (schedule.iterations !== null && k >= schedule.iterations) return null;
  const start = periodStart(schedule.start * 1000, schedule.interval, schedule.intervalCount, k);
  if (schedule.end !== null && start >= schedule.end * 1000) return null;
  return start;
}

export async function createSubscription(
  database: Database,
  caller: Caller,
  input: SubscriptionCreate,
  wake?: () => void,
): Promise<Subscription> {
  const problems: FieldProblem[] = [];
  const { billed, terms, cycle } = await termsOf(database, caller, input, problems);
  if (input.interval === undefined && !cycle && problems.length === 0) {
    problems.push({ path: 'body.interval', message: 'is required: neither a subscription template nor a recurring price gives one' });
  }
  const now = caller.actor.at;
  const startSec = input.scheduleStartDate ?? Math.floor(now / 1000);
  if (input.scheduleEndDate !== undefined && input.scheduleEndDate <= startSec)
    problems.push({ path: 'body.scheduleEndDate', message: 'must be after scheduleStartDate' });
  if (problems.length > 0 || !billed || !terms || !(input.interval ?? cycle)) throw errors.invalidFields(problems);
  const at = isoAt(now);
  const schedule: repo.Schedule = {
    start: startSec,
    end: input.scheduleEndDate ?? null,
    iterations: input.scheduleIterations ?? null,
    interval: input.interval === undefined ? (cycle as Cycle).interval : normalInterval(input.interval),
    intervalCount: input.intervalCount ?? (input.interval === undefined ? (cycle as Cycle).intervalCount : 1),
  };
  const first = nextPeriod(schedule, 0) as number;
  return unitOfWork(database, async (work) => {
    const subscription = repo.insertSubscription(work, caller.access, {
      id: newRowId(),
      billed,
      status: first > now ? 'notStarted' : 'active',
      terms,
      collectionMethod: input.collectionMethod ?? 'sendInvoice',
      schedule,
      nextPeriodAt: isoAt(first),
      at,
    });
    recordAudit(work, caller.actor, {
      eventType: 'subscriptionCreated',
      description: `Subscription ${subscription.id} created`,
      context: { subscriptionId: subscription.id, interval: schedule.interval, intervalCount: schedule.intervalCount },
      subject: subscriptionSubject(subscription),
    });
    if (wake) work.onCommit(wake); // its first period may be due now
    return subscription;
  });
}

export const listSubscriptions = listAs(repo.listSubscriptions);

export async function getSubscription(database: Database, caller: Caller, id: string): Promise<Subscription> {
  return orNotFound(await repo.findSubscription(database.db, caller.access, id), 'Subscription');
}

/** Cancels an active or not yet started subscription: no further invoice. Otherwise 409. */
export async function cancelSubscription(database: Database, caller: Caller, id: string): Promise<Subscription> {
  return unitOfWork(
    database,
    async (work) => {
      const before = orNotFound(await repo.findSubscription(work.db, caller.access, id), 'Subscription');
      if (before.status !== 'active' && before.status !== 'notStarted') {
        throw errors.conflict(`Only an active or not yet started subscription can be cancelled; this one is ${before.status}.`);
      }
      const subscription = repo.cancelSubscription(work, caller.access, before, isoAt(caller.actor.at));
      recordAudit(work, caller.actor, {
        eventType: 'subscriptionCancelled',
        description: `Subscription ${before.id} cancelled`,
        context: { subscriptionId: before.id },
        previousAttributes: { status: before.status },
        subject: subscriptionSubject(subscription),
      });
      return subscription;
    },
    { transaction: true },
  );
}
