import type { Kysely } from 'kysely';
import { type Page, type PageTokens, fetchPage, pageScope } from '../../../db/paging.js';
import type { DialectName } from '../../../db/database.js';
import { skipLocked } from '../../../db/rows.js';
import type { DB, SubscriptionsTable } from '../../../db/schema.js';
import type { UnitOfWork } from '../../../db/unit-of-work.js';
import { isoAt } from '../../../lib/clock.js';
import type { Access } from '../../../lib/caller.js';
import { billedTo, onServerTime } from './invoices.repository.js';
import { type Billed, type Terms, billingFields } from './terms.js';
import type { Subscription, SubscriptionListQuery } from './subscriptions.schemas.js';

function toSubscription(row: SubscriptionsTable): Subscription {
  return {
    id: row.id,
    object: 'subscription',
    status: row.status,
    ...billingFields(row),
    interval: row.interval,
    intervalCount: row.interval_count,
    // Unix seconds are a bigint column (past 2038): PostgreSQL answers them as text.
    scheduleStartDate: Number(row.schedule_start),
    scheduleEndDate: row.schedule_end === null ? undefined : Number(row.schedule_end),
    scheduleIterations: row.schedule_iterations ?? undefined,
    periodsBilled: row.periods_billed,
    nextBillingDate: row.next_period_at ?? undefined,
    cancelledAt: row.cancelled_at ?? undefined,
    canceledAt: row.cancelled_at ?? undefined,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function listSubscriptions(
  db: Kysely<DB>,
  access: Access,
  query: SubscriptionListQuery,
  tokens: PageTokens,
): Promise<Page<Subscription>> {
  let q = db.selectFrom('subscriptions').selectAll().where(billedTo(access));
  if (query.clientId !== undefined) q = q.where('client_id', '=', query.clientId);
  if (query.companyId !== undefined) q = q.where('company_id', '=', query.companyId);
  const scope = pageScope(access, 'subscriptions', { clientId: query.clientId, companyId: query.companyId });
  return fetchPage(q, 'subscriptions', query, tokens, scope, toSubscription);
}

/** A subscription's schedule: when it starts (Unix seconds), ends or stops, and its interval. */
export interface Schedule {
  start: number;
  end: number | null;
  iterations: number | null;
  interval: Subscription['interval'];
  intervalCount: number;
}

/** A subscription as stored: the API's object with its status (what a change checks). */
export async function findSubscription(db: Kysely<DB>, access: Access, id: string): Promise<Subscription | undefined> {
  const row = await db.selectFrom('subscriptions').selectAll().where(billedTo(access)).where('id', '=', id).executeTakeFirst();
  return row && toSubscription(row);
}

/** A new subscription of this access's workspace: who is billed, its terms and schedule; the subscription as served. */
export function insertSubscription(
  work: UnitOfWork,
  access: Access,
  input: {
    id: string;
    billed: Billed;
    status: Subscription['status'];
    terms: Terms;
    collectionMethod: Subscription['collectionMethod'];
    schedule: Schedule;
    nextPeriodAt: string;
    at: string;
  },
): Subscription {
  const row: SubscriptionsTable = {
    id: input.id,
    workspace_id: access.workspaceId,
    client_id: input.billed.clientId,
    company_id: input.billed.companyId,
    status: input.status,
    terms: JSON.stringify(input.terms),
    collection_method: input.collectionMethod,
    schedule_start: input.schedule.start,
    schedule_end: input.schedule.end,
    schedule_iterations: input.schedule.iterations,
    interval: input.schedule.interval,
    interval_count: input.schedule.intervalCount,
    periods_billed: 0,
    next_period_at: input.nextPeriodAt,
    cancelled_at: null,
    created_at: input.at,
    updated_at: input.at,
  };
  work.write(work.db.insertInto('subscriptions').values(row));
  return toSubscription(row);
}

/** Cancels a subscription this access sees (workspace and company scope in the WHERE); the subscription after. */
export function cancelSubscription(work: UnitOfWork, access: Access, before: Subscription, at: string): Subscription {
  const changes = { status: 'cancelled' as const, cancelled_at: at, next_period_at: null, updated_at: at };
  work.write(work.db.updateTable('subscriptions').set(changes).where(billedTo(access)).where('id', '=', before.id));
  return { ...before, status: 'cancelled', cancelledAt: at, canceledAt: at, nextBillingDate: undefined, updatedAt: at };
}

/** A subscription with a period due, as the biller needs it. */
export interface DueSubscription {
  id: string;
  workspaceId: string;
  billed: Billed;
  terms: Terms;
  collectionMethod: Subscription['collectionMethod'];
  schedule: Schedule;
  periodsBilled: number;
  status: Subscription['status'];
}

/** Statuses whose subscription still bills its periods. */
const BILLING_STATUSES: readonly Subscription['status'][] = ['notStarted', 'active', 'pastDue', 'unpaid'];

/**
 * The most overdue subscription with a period due (of one workspace, or of every workspace on the server's time),
 * locked for this transaction (PostgreSQL: skipped by other processes).
 */
export async function claimMostOverdue(
  work: UnitOfWork,
  dialect: DialectName,
  scope: { workspaceId: string | null; now: number },
): Promise<DueSubscription | undefined> {
  let due = work.db
    .selectFrom('subscriptions')
    .selectAll()
    .where('status', 'in', BILLING_STATUSES)
    .where('next_period_at', '<=', isoAt(scope.now))
    .orderBy('next_period_at')
    .limit(1);
  due = scope.workspaceId === null ? due.where(onServerTime) : due.where('workspace_id', '=', scope.workspaceId);
  const row = (await skipLocked(due, dialect).executeTakeFirst()) as SubscriptionsTable | undefined;
  return (
    row && {
      id: row.id,
      workspaceId: row.workspace_id,
      billed: { clientId: row.client_id, companyId: row.company_id },
      terms: JSON.parse(row.terms) as Terms,
      collectionMethod: row.collection_method,
      schedule: {
        start: Number(row.schedule_start),
        end: row.schedule_end === null ? null : Number(row.schedule_end),
        iterations: row.schedule_iterations,
        interval: row.interval,
        intervalCount: row.interval_count,
      },
      periodsBilled: row.periods_billed,
      status: row.status,
    }
  );
}

/**
 * Moves a subscription of this access's workspace past period `billed`; nothing if another process already did.
 * `nextPeriodAt` null: no period is left.
 */
export function advanceSubscription(
  work: UnitOfWork,
  access: Access,
  id: string,
  billed: number,
  changes: { periodsBilled: number; status: Subscription['status']; nextPeriodAt: string | null; at: string },
): void {
  work.write(
    work.db
      .updateTable('subscriptions')
      .set({ periods_billed: changes.periodsBilled, status: changes.status, next_period_at: changes.nextPeriodAt, updated_at: changes.at })
      .where(billedTo(access))
      .where('id', '=', id)
      .where('periods_billed', '=', billed),
  );
}

/** Moves a subscription of this access's workspace from one of `from` to `to` (nothing if it is in none of them). */
export function setSubscriptionStatus(
  work: UnitOfWork,
  access: Access,
  id: string,
  from: readonly Subscription['status'][],
  to: Subscription['status'],
  at: string,
): void {
  work.write(
    work.db
      .updateTable('subscriptions')
      .set({ status: to, updated_at: at })
      .where(billedTo(access))
      .where('id', '=', id)
      .where('status', 'in', from),
  );
}
