import type { Kysely } from 'kysely';
import { type Page, type PageTokens, fetchPage, pageScope } from '../../db/paging.js';
import type { DialectName } from '../../db/database.js';
import { skipLocked } from '../../db/rows.js';
import type { DB, SubscriptionsTable } from '../../db/schema.js';
import type { UnitOfWork } from '../../db/unit-of-work.js';
import { isoAt } from '../../lib/clock.js';
import type { Access } from '../../lib/caller.js';
import { billedTo } from './invoices.repository.js';
import { billingFields } from './terms.js';
import type { Subscription, SubscriptionListQuery } from './subscriptions.schemas.js';

export function toSubscription(row: SubscriptionsTable): Subscription {
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

export function findSubscriptionRow(db: Kysely<DB>, access: Access, id: string) {
  return db.selectFrom('subscriptions').selectAll().where(billedTo(access)).where('id', '=', id).executeTakeFirst();
}

export function insertSubscription(work: UnitOfWork, row: SubscriptionsTable): void {
  work.write(work.db.insertInto('subscriptions').values(row));
}

export function changeSubscription(work: UnitOfWork, id: string, changes: Partial<SubscriptionsTable>): void {
  work.write(work.db.updateTable('subscriptions').set(changes).where('id', '=', id));
}

/** The most overdue subscription with a period due, locked for this transaction (PostgreSQL: skipped by other processes). */
export async function claimMostOverdue(work: UnitOfWork, dialect: DialectName, now: number): Promise<SubscriptionsTable | undefined> {
  const due = work.db
    .selectFrom('subscriptions')
    .selectAll()
    .where('status', 'in', ['notStarted', 'active'])
    .where('next_period_at', '<=', isoAt(now))
    .orderBy('next_period_at')
    .limit(1);
  return (await skipLocked(due, dialect).executeTakeFirst()) as SubscriptionsTable | undefined;
}

/** Moves a subscription past period `billed`; nothing if another process already did. */
export function advanceSubscription(work: UnitOfWork, id: string, billed: number, changes: Partial<SubscriptionsTable>): void {
  work.write(work.db.updateTable('subscriptions').set(changes).where('id', '=', id).where('periods_billed', '=', billed));
}
