import { randomUUID } from 'node:crypto';
import type { Database } from '../../db/database.js';
import { listAs } from '../../db/paging.js';
import type { SubscriptionsTable } from '../../db/schema.js';
import { unitOfWork } from '../../db/unit-of-work.js';
import type { Caller } from '../../lib/caller.js';
import { isoAt } from '../../lib/clock.js';
import { type FieldProblem, errors, orNotFound } from '../../lib/errors.js';
import { recordAudit } from '../../audit/index.js';
import { type Cycle, termsOf } from './terms.js';
import { normalInterval, periodStart } from './periods.js';
import * as repo from './subscriptions.repository.js';
import type { Subscription, SubscriptionCreate } from './subscriptions.schemas.js';

const subscriptionSubject = (s: Subscription) => ({ object: 'subscription', id: s.id, data: s, companyId: s.companyId });

/** When period k starts, or null when the schedule (end date, iterations) has no period k. */
export function nextPeriod(
  row: Pick<SubscriptionsTable, 'schedule_start' | 'schedule_end' | 'schedule_iterations' | 'interval' | 'interval_count'>,
  k: number,
) {
  if (row.schedule_iterations !== null && k >= row.schedule_iterations) return null;
  const start = periodStart(Number(row.schedule_start) * 1000, row.interval, row.interval_count, k);
  if (row.schedule_end !== null && start >= Number(row.schedule_end) * 1000) return null;
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
  const schedule = {
    schedule_start: startSec,
    schedule_end: input.scheduleEndDate ?? null,
    schedule_iterations: input.scheduleIterations ?? null,
    interval: input.interval === undefined ? (cycle as Cycle).interval : normalInterval(input.interval),
    interval_count: input.intervalCount ?? (input.interval === undefined ? (cycle as Cycle).intervalCount : 1),
  };
  const first = nextPeriod(schedule, 0) as number;
  const row: SubscriptionsTable = {
    id: randomUUID(),
    workspace_id: caller.access.workspaceId,
    client_id: billed.clientId,
    company_id: billed.companyId,
    status: first > now ? 'notStarted' : 'active',
    terms: JSON.stringify(terms),
    collection_method: input.collectionMethod ?? 'sendInvoice',
    ...schedule,
    periods_billed: 0,
    next_period_at: isoAt(first),
    cancelled_at: null,
    created_at: at,
    updated_at: at,
  };
  const subscription = repo.toSubscription(row);
  await unitOfWork(database, async (work) => {
    repo.insertSubscription(work, row);
    recordAudit(work, caller.actor, {
      eventType: 'subscriptionCreated',
      description: `Subscription ${row.id} created`,
      context: { subscriptionId: row.id, interval: row.interval, intervalCount: row.interval_count },
      subject: subscriptionSubject(subscription),
    });
    if (wake) work.onCommit(wake); // its first period may be due now
  });
  return subscription;
}

export const listSubscriptions = listAs(repo.listSubscriptions);

export async function getSubscription(database: Database, caller: Caller, id: string): Promise<Subscription> {
  return repo.toSubscription(orNotFound(await repo.findSubscriptionRow(database.db, caller.access, id), 'Subscription'));
}

/** Cancels an active or not yet started subscription: no further invoice. Otherwise 409. */
export async function cancelSubscription(database: Database, caller: Caller, id: string): Promise<Subscription> {
  return unitOfWork(
    database,
    async (work) => {
      const row = orNotFound(await repo.findSubscriptionRow(work.db, caller.access, id), 'Subscription');
      if (row.status !== 'active' && row.status !== 'notStarted') {
        throw errors.conflict(`Only an active or not yet started subscription can be cancelled; this one is ${row.status}.`);
      }
      const at = isoAt(caller.actor.at);
      const changes = { status: 'cancelled' as const, cancelled_at: at, next_period_at: null, updated_at: at };
      repo.changeSubscription(work, row.id, changes);
      const subscription = repo.toSubscription({ ...row, ...changes });
      recordAudit(work, caller.actor, {
        eventType: 'subscriptionCancelled',
        description: `Subscription ${row.id} cancelled`,
        context: { subscriptionId: row.id },
        previousAttributes: { status: row.status },
        subject: subscriptionSubject(subscription),
      });
      return subscription;
    },
    { transaction: true },
  );
}
