import { type ExpressionBuilder, type Kysely, sql } from 'kysely';
import type { DialectName } from '../../../db/database.js';
import { type Page, type PageTokens, fetchPage, pageScope } from '../../../db/paging.js';
import { lockedForUpdate, nonEmpty, skipLocked } from '../../../db/rows.js';
import type { DB, PaymentMethodsTable, PaymentsTable, RefundsTable } from '../../../db/schema.js';
import type { UnitOfWork } from '../../../db/unit-of-work.js';
import type { Access } from '../../../lib/caller.js';
import { isoAt } from '../../../lib/clock.js';
import { newRowId } from '../../../lib/row-id.js';
import { billedTo, findInvoice, invoiceNumber, onServerTime, toPayment } from './invoices.repository.js';
import type { Payment } from './invoices.schemas.js';
import type { PaymentMethod, PaymentMethodListQuery, Refund, RefundListQuery } from './payments.schemas.js';
import type { Billed } from './terms.js';

function toPaymentMethod(row: PaymentMethodsTable): PaymentMethod {
  return {
    id: row.id,
    object: 'paymentMethod',
    type: 'creditCard',
    clientId: row.client_id ?? undefined,
    companyId: row.company_id,
    brand: row.brand,
    last4Digits: row.last4,
    expMonth: row.exp_month,
    expYear: row.exp_year,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export interface StoredPaymentMethod {
  method: PaymentMethod;
  token: string;
}

export function insertPaymentMethod(
  work: UnitOfWork,
  access: Access,
  input: { billed: Billed; brand: string; last4: string; expMonth: number; expYear: number; token: string; at: string },
): PaymentMethod {
  const row: PaymentMethodsTable = {
    id: newRowId(),
    workspace_id: access.workspaceId,
    client_id: input.billed.clientId,
    company_id: input.billed.companyId,
    brand: input.brand,
    last4: input.last4,
    exp_month: input.expMonth,
    exp_year: input.expYear,
    processor_token: input.token,
    created_at: input.at,
    updated_at: input.at,
  };
  work.write(work.db.insertInto('payment_methods').values(row));
  return toPaymentMethod(row);
}

export function listPaymentMethods(
  db: Kysely<DB>,
  access: Access,
  query: PaymentMethodListQuery,
  tokens: PageTokens,
): Promise<Page<PaymentMethod>> {
  let q = db.selectFrom('payment_methods').selectAll().where(billedTo(access));
  if (query.clientId !== undefined) q = q.where('client_id', '=', query.clientId);
  if (query.companyId !== undefined) q = q.where('company_id', '=', query.companyId);
  const scope = pageScope(access, 'payment_methods', { clientId: query.clientId, companyId: query.companyId });
  return fetchPage(q, 'payment_methods', query, tokens, scope, toPaymentMethod);
}

export async function findPaymentMethod(db: Kysely<DB>, access: Access, id: string): Promise<StoredPaymentMethod | undefined> {
  const row = await db.selectFrom('payment_methods').selectAll().where(billedTo(access)).where('id', '=', id).executeTakeFirst();
  return row && { method: toPaymentMethod(row), token: row.processor_token };
}

/** The card an invoice is charged to by default: the newest of the party billed (the client's, else the company's). */
export async function defaultPaymentMethod(db: Kysely<DB>, workspaceId: string, billed: Billed): Promise<StoredPaymentMethod | undefined> {
  const row = await db
    .selectFrom('payment_methods')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('company_id', '=', billed.companyId)
    .where((eb) => (billed.clientId === null ? eb('client_id', 'is', null) : eb('client_id', '=', billed.clientId)))
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row && { method: toPaymentMethod(row), token: row.processor_token };
}

export function deletePaymentMethod(work: UnitOfWork, access: Access, id: string): void {
  work.write(work.db.deleteFrom('payment_methods').where(billedTo(access)).where('id', '=', id));
}

/** An open invoice with a charge due, as the payment worker needs it. */
export interface DueCharge {
  invoiceId: string;
  workspaceId: string;
  attemptCount: number;
}

/**
 * The open invoice whose automatic charge is most overdue (of one workspace, or of every workspace on the server's
 * time), locked for this transaction (PostgreSQL: skipped by other processes).
 */
export async function claimDueCharge(
  work: UnitOfWork,
  dialect: DialectName,
  scope: { workspaceId: string | null; now: number },
): Promise<DueCharge | undefined> {
  let due = work.db
    .selectFrom('invoices')
    .select(['id', 'workspace_id', 'attempt_count'])
    .where('status', '=', 'open')
    .where('next_payment_attempt_at', '<=', isoAt(scope.now))
    .orderBy('next_payment_attempt_at')
    .limit(1);
  due = scope.workspaceId === null ? due.where(onServerTime) : due.where('workspace_id', '=', scope.workspaceId);
  const row = await skipLocked(due, dialect).executeTakeFirst();
  return row && { invoiceId: row.id, workspaceId: row.workspace_id, attemptCount: row.attempt_count };
}

/** When the next charge or period of one workspace falls due (ISO), for a test clock's advance: one round trip. */
export async function nextDueOf(db: Kysely<DB>, workspaceId: string): Promise<string | undefined> {
  const { charge, period } = await db
    .selectNoFrom((eb) => [
      eb
        .selectFrom('invoices')
        .select((e) => e.fn.min('next_payment_attempt_at').as('at'))
        .where('workspace_id', '=', workspaceId)
        .where('status', '=', 'open')
        .as('charge'),
      eb
        .selectFrom('subscriptions')
        .select((e) => e.fn.min('next_period_at').as('at'))
        .where('workspace_id', '=', workspaceId)
        .where('status', 'in', ['notStarted', 'active', 'pastDue', 'unpaid'])
        .as('period'),
    ])
    .executeTakeFirstOrThrow();
  return [charge, period].filter((at): at is string => at !== null).sort()[0];
}

/** The invoice and payment rows a refund changes, locked for the transaction. */
export async function findPaymentForRefund(work: UnitOfWork, access: Access, id: string) {
  const q = work.db.selectFrom('payments').selectAll().where('workspace_id', '=', access.workspaceId).where('id', '=', id);
  const row = (await lockedForUpdate(q, work.database.dialect).executeTakeFirst()) as PaymentsTable | undefined;
  if (!row) return undefined;
  const invoice = await findInvoice(work.db, access, row.invoice_id);
  if (!invoice) return undefined;
  const pending = await work.db
    .selectFrom('refunds')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number | string>('amount'), sql<number>`0`).as('total'))
    .where('payment_id', '=', id)
    .where('status', '=', 'pending')
    .executeTakeFirstOrThrow();
  return { payment: toPayment(row), processorRef: row.processor_ref, invoice, pendingRefunds: Number(pending.total) };
}

function toRefund(row: RefundsTable): Refund {
  return {
    id: row.id,
    object: 'refund',
    paymentId: row.payment_id,
    invoiceId: row.invoice_id,
    amount: Number(row.amount),
    currency: row.currency,
    status: row.status,
    reason: row.reason ?? undefined,
    failureMessage: row.failure_message ?? undefined,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function insertRefund(
  work: UnitOfWork,
  access: Access,
  input: { payment: Payment; companyId: string; amount: number; currency: string; reason: string | null; at: string },
): Refund {
  const row: RefundsTable = {
    id: newRowId(),
    workspace_id: access.workspaceId,
    payment_id: input.payment.id,
    invoice_id: input.payment.invoiceId,
    company_id: input.companyId,
    amount: input.amount,
    currency: input.currency,
    reason: input.reason,
    status: 'pending',
    failure_message: null,
    created_at: input.at,
    updated_at: input.at,
  };
  work.write(work.db.insertInto('refunds').values(row));
  return toRefund(row);
}

/** Settles a pending refund: succeeded (its amount added to the payment's and the invoice's) or failed. */
export function settleRefund(work: UnitOfWork, access: Access, refund: Refund, outcome: { failureMessage?: string }, at: string): Refund {
  const status = outcome.failureMessage === undefined ? 'succeeded' : 'failed';
  work.write(
    work.db
      .updateTable('refunds')
      .set({ status, failure_message: outcome.failureMessage ?? null, updated_at: at })
      .where('workspace_id', '=', access.workspaceId)
      .where('id', '=', refund.id)
      .where('status', '=', 'pending'),
  );
  if (status === 'succeeded') {
    const add = { amount_refunded: sql<number>`amount_refunded + ${refund.amount}`, updated_at: at };
    work.write(work.db.updateTable('payments').set(add).where('workspace_id', '=', access.workspaceId).where('id', '=', refund.paymentId));
    work.write(work.db.updateTable('invoices').set(add).where('workspace_id', '=', access.workspaceId).where('id', '=', refund.invoiceId));
  }
  return { ...refund, status, ...(outcome.failureMessage === undefined ? {} : { failureMessage: outcome.failureMessage }), updatedAt: at };
}

/** A refund asked of the processor and not yet settled, with what settling it needs (its invoice's number for the log). */
export interface PendingRefund {
  refund: Refund;
  companyId: string;
  processorRef: string | null;
  number: string | undefined;
}

/** A refund, locked for the transaction that settles it (another process may have settled it meanwhile). */
export async function lockRefund(work: UnitOfWork, access: Access, id: string): Promise<Refund | undefined> {
  const q = work.db.selectFrom('refunds').selectAll().where('workspace_id', '=', access.workspaceId).where('id', '=', id);
  const row = (await lockedForUpdate(q, work.database.dialect).executeTakeFirst()) as RefundsTable | undefined;
  return row && toRefund(row);
}

/**
 * The refund left pending longest, if since before `staleBefore` (its request died between its two transactions), of one
 * workspace or of every workspace on the server's time, with what settling it needs; claimed for another lease
 * (its updatedAt moved to `at`; PostgreSQL: skipped by other processes meanwhile).
 */
export async function claimStaleRefund(
  work: UnitOfWork,
  dialect: DialectName,
  scope: { workspaceId: string | null; staleBefore: string; at: string },
): Promise<(PendingRefund & { workspaceId: string }) | undefined> {
  let stale = work.db
    .selectFrom('refunds')
    .selectAll()
    .where('status', '=', 'pending')
    .where('updated_at', '<=', scope.staleBefore)
    .orderBy('updated_at')
    .limit(1);
  stale = scope.workspaceId === null ? stale.where(onServerTime) : stale.where('workspace_id', '=', scope.workspaceId);
  const row = (await skipLocked(stale, dialect).executeTakeFirst()) as RefundsTable | undefined;
  if (!row) return undefined;
  const charged = await work.db
    .selectFrom('payments')
    .innerJoin('invoices', 'invoices.id', 'payments.invoice_id')
    .select(['payments.processor_ref', 'invoices.number'])
    .where('payments.id', '=', row.payment_id)
    .executeTakeFirstOrThrow();
  work.write(work.db.updateTable('refunds').set({ updated_at: scope.at }).where('id', '=', row.id));
  return {
    refund: toRefund({ ...row, updated_at: scope.at }),
    workspaceId: row.workspace_id,
    companyId: row.company_id,
    processorRef: charged.processor_ref,
    number: charged.number === null ? undefined : invoiceNumber(charged.number),
  };
}

/** Refunds this access sees: those of the invoices it sees (a limited principal's companies). */
const visibleRefunds = (access: Access) => (eb: ExpressionBuilder<DB, 'refunds'>) => {
  const inWorkspace = eb('workspace_id', '=', access.workspaceId);
  return access.companyIds ? eb.and([inWorkspace, eb('company_id', 'in', nonEmpty(access.companyIds))]) : inWorkspace;
};

export function listRefunds(db: Kysely<DB>, access: Access, query: RefundListQuery, tokens: PageTokens): Promise<Page<Refund>> {
  let q = db.selectFrom('refunds').selectAll().where(visibleRefunds(access));
  if (query.paymentId !== undefined) q = q.where('payment_id', '=', query.paymentId);
  if (query.invoiceId !== undefined) q = q.where('invoice_id', '=', query.invoiceId);
  const scope = pageScope(access, 'refunds', { paymentId: query.paymentId, invoiceId: query.invoiceId });
  return fetchPage(q, 'refunds', query, tokens, scope, toRefund);
}

export async function findRefund(db: Kysely<DB>, access: Access, id: string): Promise<Refund | undefined> {
  const row = await db.selectFrom('refunds').selectAll().where(visibleRefunds(access)).where('id', '=', id).executeTakeFirst();
  return row && toRefund(row);
}

/** Sandboxes whose test clock moved: each is billed on its own time. */
export async function advancedClocks(db: Kysely<DB>): Promise<{ workspaceId: string; offsetMs: number }[]> {
  const rows = await db.selectFrom('workspaces').select(['id', 'clock_offset_ms']).where('clock_offset_ms', '<>', 0).execute();
  return rows.map((row) => ({ workspaceId: row.id, offsetMs: Number(row.clock_offset_ms) }));
}
