import { type ExpressionBuilder, type Kysely, type SelectQueryBuilder, sql } from 'kysely';
import { type Page, type PageTokens, fetchPage, pageScope, preparedList } from '../../../db/paging.js';
import { lockedForUpdate, nonEmpty } from '../../../db/rows.js';
import type { DB, InvoicesTable, PaymentsTable } from '../../../db/schema.js';
import { type FullRow, preparedWrite } from '../../../db/prepared.js';
import type { UnitOfWork } from '../../../db/unit-of-work.js';
import type { Access } from '../../../lib/caller.js';
import { newRowId } from '../../../lib/row-id.js';
import type { Invoice, InvoiceListQuery, Payment, PaymentListQuery } from './invoices.schemas.js';
import { type Billed, type Terms, amountsOf, billingFields } from './terms.js';

export const invoiceNumber = (n: number) => String(n).padStart(4, '0');

/** What `toInvoice` reads of a row (the period index and void date are storage's own). */
type InvoiceColumns = Omit<InvoicesTable, 'workspace_id' | 'period_index' | 'voided_at'>;

function toInvoice(row: InvoiceColumns): Invoice {
  return {
    id: row.id,
    object: 'invoice',
    number: row.number === null ? undefined : invoiceNumber(row.number),
    status: row.status,
    ...billingFields(row),
    subtotal: Number(row.subtotal),
    taxAmount: Number(row.tax_amount),
    total: Number(row.total),
    dueDate: row.due_date,
    sentDate: row.sent_date ?? undefined,
    billingReason: row.billing_reason,
    subscriptionId: row.subscription_id ?? undefined,
    paymentSuccessDate: row.paid_at ?? undefined,
    amountRefunded: Number(row.amount_refunded) > 0 ? Number(row.amount_refunded) : undefined,
    attemptCount: row.attempt_count > 0 ? row.attempt_count : undefined,
    nextPaymentAttempt: row.next_payment_attempt_at ?? undefined,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** An invoice as stored: the API's object, the terms it bills (their template included) and its number as counted. */
export interface StoredInvoice {
  readonly invoice: Invoice;
  readonly terms: Terms;
  /** null while it is a draft (drafts made before drafts went unnumbered have one) */
  readonly number: number | null;
}

function toStored(row: InvoicesTable): StoredInvoice {
  return { invoice: toInvoice(row), terms: JSON.parse(row.terms) as Terms, number: row.number };
}

/** The columns of a stored invoice, back from its domain object (what an update's answer is computed from). */
function columnsOf(stored: StoredInvoice): InvoiceColumns {
  const { invoice } = stored;
  return {
    id: invoice.id,
    number: stored.number,
    client_id: invoice.clientId ?? null,
    company_id: invoice.companyId,
    status: invoice.status,
    terms: JSON.stringify(stored.terms),
    subtotal: invoice.subtotal,
    tax_amount: invoice.taxAmount,
    total: invoice.total,
    due_date: invoice.dueDate,
    sent_date: invoice.sentDate ?? null,
    billing_reason: invoice.billingReason,
    collection_method: invoice.collectionMethod,
    subscription_id: invoice.subscriptionId ?? null,
    paid_at: invoice.paymentSuccessDate ?? null,
    amount_refunded: invoice.amountRefunded ?? 0,
    attempt_count: invoice.attemptCount ?? 0,
    next_payment_attempt_at: invoice.nextPaymentAttempt ?? null,
    created_at: invoice.createdAt,
    updated_at: invoice.updatedAt,
  };
}

/** The stored columns of terms: the JSON document and the amounts computed from it. */
function termColumns(terms: Terms) {
  const { subtotal, taxAmount, total } = amountsOf(terms);
  return { terms: JSON.stringify(terms), subtotal, tax_amount: taxAmount, total };
}

/**
 * Billing a client session sees (invoices, subscriptions, cards): its own, and its companies' (billed to the
 * company); a limited principal its companies'.
 */
export function billedTo(access: Access) {
  return <T extends 'invoices' | 'subscriptions' | 'payment_methods'>(eb: ExpressionBuilder<DB, T>) => {
    const e = eb as unknown as ExpressionBuilder<DB, 'invoices'>;
    const conditions = [e('workspace_id', '=', access.workspaceId)];
    if (access.clientId) {
      conditions.push(
        e.or([
          e('client_id', '=', access.clientId),
          e.and([e('client_id', 'is', null), e('company_id', 'in', nonEmpty(access.companyIds ?? []))]),
        ]),
      );
    } else if (access.companyIds) {
      conditions.push(e('company_id', 'in', nonEmpty(access.companyIds)));
    }
    return e.and(conditions);
  };
}

/** Rows of workspaces whose clock is the server's (a sandbox whose test clock moved is worked on its own time). */
export const onServerTime = (eb: ExpressionBuilder<DB, 'invoices' | 'subscriptions' | 'refunds'>) =>
  eb(eb.ref('workspace_id'), 'not in', eb.selectFrom('workspaces').select('workspaces.id').where('workspaces.clock_offset_ms', '<>', 0));

/**
 * Invoices this access sees: those billed to it; a client session only those sent to it. A draft is staff's
 * until it is finalised, and a draft voided before that was never sent (both have no sentDate).
 */
function visibleInvoices(access: Access) {
  return (eb: ExpressionBuilder<DB, 'invoices'>) => {
    const billed = billedTo(access)(eb);
    return access.clientId ? eb.and([billed, eb('invoices.sent_date', 'is not', null)]) : billed;
  };
}

/** The list's filters. A type, not an interface: prepared lists take records. */
type InvoiceFilters = { clientId?: string; companyId?: string; status?: Invoice['status'] };

function filtered(q: SelectQueryBuilder<DB, 'invoices', InvoicesTable>, f: InvoiceFilters) {
  let filteredQuery = q;
  if (f.clientId !== undefined) filteredQuery = filteredQuery.where('client_id', '=', f.clientId);
  if (f.companyId !== undefined) filteredQuery = filteredQuery.where('company_id', '=', f.companyId);
  if (f.status !== undefined) filteredQuery = filteredQuery.where('status', '=', f.status);
  return filteredQuery;
}

/** A whole workspace's invoices (a principal neither a client nor limited to some companies): prepared per filter shape. */
const workspaceInvoices = preparedList(
  'invoices_page',
  (db, p: InvoiceFilters & { workspaceId: string }) =>
    filtered(db.selectFrom('invoices').selectAll().where('workspace_id', '=', p.workspaceId), p),
  'invoices',
  toInvoice,
);

export function listInvoices(db: Kysely<DB>, access: Access, query: InvoiceListQuery, tokens: PageTokens): Promise<Page<Invoice>> {
  const filters = { clientId: query.clientId, companyId: query.companyId, status: query.status };
  const scope = pageScope(access, 'invoices', filters);
  const page = { limit: query.limit, nextToken: query.nextToken };
  if (!access.companyIds && !access.clientId)
    return workspaceInvoices(db, { workspaceId: access.workspaceId, ...filters }, page, tokens, scope);
  return fetchPage(
    filtered(db.selectFrom('invoices').selectAll().where(visibleInvoices(access)), filters),
    'invoices',
    page,
    tokens,
    scope,
    toInvoice,
  );
}

/** The invoice, if this access sees it (a client session: only one sent to it). */
export async function findInvoice(db: Kysely<DB>, access: Access, id: string): Promise<StoredInvoice | undefined> {
  const row = await db.selectFrom('invoices').selectAll().where(visibleInvoices(access)).where('id', '=', id).executeTakeFirst();
  return row && toStored(row);
}

const takeNumber = preparedWrite('take_invoice_number', (db, p: { workspaceId: string }) =>
  db
    .insertInto('invoice_counters')
    .values({ workspace_id: p.workspaceId, last_number: 1 })
    .onConflict((oc) => oc.column('workspace_id').doUpdateSet({ last_number: sql`invoice_counters.last_number + 1` }))
    .returning('last_number'),
);

/**
 * Takes the workspace's next invoice number in the unit's commit and hands it to `then` there (which
 * queues the invoice's writes): the counter row is incremented in the invoice's own transaction, so
 * concurrent creations are ordered by it and a rollback gives the number back (no gaps, no duplicates).
 */
export function takeInvoiceNumber<T>(work: UnitOfWork, access: Access, then: (number: number) => T): () => T {
  return work.writeReturning(takeNumber(work.db, { workspaceId: access.workspaceId }), (row) => then(Number(row?.last_number)));
}

const insertInvoiceRow = preparedWrite('insert_invoice', (db, row: FullRow<'invoices'>) => db.insertInto('invoices').values(row));

/** A new invoice: who is billed, its terms (amounts computed from them), status, dates and origin. */
export interface NewInvoiceRecord {
  id: string;
  number: number | null;
  billed: Billed;
  status: Invoice['status'];
  terms: Terms;
  dueDate: string;
  sentDate: string | null;
  billingReason: Invoice['billingReason'];
  collectionMethod: Invoice['collectionMethod'];
  subscription?: { id: string; periodIndex: number };
  /** automatic collection: when the first charge is attempted */
  nextPaymentAttemptAt: string | null;
  at: string;
}

/** Queues a new invoice of this access's workspace; the invoice as the API serves it. */
export function insertInvoice(work: UnitOfWork, access: Access, input: NewInvoiceRecord): Invoice {
  const row: InvoicesTable = {
    id: input.id,
    workspace_id: access.workspaceId,
    number: input.number,
    client_id: input.billed.clientId,
    company_id: input.billed.companyId,
    status: input.status,
    ...termColumns(input.terms),
    due_date: input.dueDate,
    sent_date: input.sentDate,
    billing_reason: input.billingReason,
    collection_method: input.collectionMethod,
    subscription_id: input.subscription?.id ?? null,
    period_index: input.subscription?.periodIndex ?? null,
    paid_at: null,
    voided_at: null,
    amount_refunded: 0,
    attempt_count: 0,
    next_payment_attempt_at: input.nextPaymentAttemptAt,
    created_at: input.at,
    updated_at: input.at,
  };
  work.write(insertInvoiceRow(work.db, row));
  return toInvoice(row);
}

/** What a change of an invoice sets (`updatedAt` always). */
export interface InvoiceChanges {
  billed?: Billed;
  terms?: Terms;
  number?: number | null;
  status?: Invoice['status'];
  dueDate?: string;
  sentDate?: string;
  paidAt?: string;
  voidedAt?: string;
  amountRefunded?: number;
  attemptCount?: number;
  /** null: no further attempt */
  nextPaymentAttemptAt?: string | null;
  updatedAt: string;
}

/**
 * Queues a change of an invoice this access sees (its workspace and, for a limited principal, its companies
 * in the WHERE); the invoice as it is after the change.
 */
export function updateInvoice(work: UnitOfWork, access: Access, before: StoredInvoice, changes: InvoiceChanges): Invoice {
  const set: Partial<InvoicesTable> = {
    ...(changes.billed ? { client_id: changes.billed.clientId, company_id: changes.billed.companyId } : {}),
    ...(changes.terms ? termColumns(changes.terms) : {}),
    ...(changes.number !== undefined ? { number: changes.number } : {}),
    ...(changes.status ? { status: changes.status } : {}),
    ...(changes.dueDate ? { due_date: changes.dueDate } : {}),
    ...(changes.sentDate ? { sent_date: changes.sentDate } : {}),
    ...(changes.paidAt ? { paid_at: changes.paidAt } : {}),
    ...(changes.voidedAt ? { voided_at: changes.voidedAt } : {}),
    ...(changes.amountRefunded !== undefined ? { amount_refunded: changes.amountRefunded } : {}),
    ...(changes.attemptCount !== undefined ? { attempt_count: changes.attemptCount } : {}),
    ...(changes.nextPaymentAttemptAt !== undefined ? { next_payment_attempt_at: changes.nextPaymentAttemptAt } : {}),
    updated_at: changes.updatedAt,
  };
  work.write(work.db.updateTable('invoices').set(set).where(billedTo(access)).where('id', '=', before.invoice.id));
  const { voided_at: _voided, period_index: _period, workspace_id: _workspace, ...shown } = set;
  return toInvoice({ ...columnsOf(before), ...shown });
}

/** Queues the deletion of an invoice this access sees (its workspace and company scope in the WHERE). */
export function deleteInvoice(work: UnitOfWork, access: Access, id: string): void {
  work.write(work.db.deleteFrom('invoices').where(billedTo(access)).where('id', '=', id));
}

export function toPayment(row: PaymentsTable): Payment {
  const amountRefunded = Number(row.amount_refunded);
  return {
    id: row.id,
    object: 'payment',
    invoiceId: row.invoice_id,
    status: row.status,
    amount: Number(row.amount),
    message: row.message ?? undefined,
    declineCode: row.decline_code ?? undefined,
    paymentMethod: row.payment_method,
    paymentMethodId: row.payment_method_id ?? undefined,
    last4Digits: row.last4 ?? undefined,
    brand: row.brand ?? undefined,
    amountRefunded: amountRefunded > 0 ? amountRefunded : undefined,
    feeAmount: { paidByPlatform: 0, paidByClient: 0 },
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** A charge of a card (none when the party had no card on file): what the processor answered. */
export interface CardCharge {
  card?: { paymentMethodId: string; brand: string; last4: string };
  outcome: { status: 'succeeded'; reference: string } | { status: 'failed'; declineCode: string; message: string };
}

/** A payment of an invoice: marked paid by an operator (no charge), or a card's charge, succeeded or failed. */
export function insertPayment(work: UnitOfWork, access: Access, invoice: Invoice, at: string, charge?: CardCharge): Payment {
  const outcome = charge?.outcome;
  const row: PaymentsTable = {
    id: newRowId(),
    workspace_id: access.workspaceId,
    invoice_id: invoice.id,
    status: outcome?.status ?? 'succeeded',
    amount: invoice.total,
    payment_method: charge ? 'creditCard' : 'manual',
    payment_method_id: charge?.card?.paymentMethodId ?? null,
    brand: charge?.card?.brand ?? null,
    last4: charge?.card?.last4 ?? null,
    message: outcome?.status === 'failed' ? outcome.message : null,
    decline_code: outcome?.status === 'failed' ? outcome.declineCode : null,
    processor_ref: outcome?.status === 'succeeded' ? outcome.reference : null,
    amount_refunded: 0,
    created_at: at,
    updated_at: at,
  };
  work.write(work.db.insertInto('payments').values(row));
  return toPayment(row);
}

/** Payments of the invoices the caller sees: a limited principal only those of its companies' invoices. */
export function listPayments(db: Kysely<DB>, access: Access, query: PaymentListQuery, tokens: PageTokens): Promise<Page<Payment>> {
  let q = db.selectFrom('payments').selectAll('payments').where('payments.workspace_id', '=', access.workspaceId);
  if (access.companyIds || access.clientId)
    q = q.where('payments.invoice_id', 'in', db.selectFrom('invoices').select('invoices.id').where(visibleInvoices(access)));
  if (query.invoiceId !== undefined) q = q.where('payments.invoice_id', '=', query.invoiceId);
  return fetchPage(q, 'payments', query, tokens, pageScope(access, 'payments', { invoiceId: query.invoiceId }), toPayment);
}

/** The invoice, locked for the transaction (PostgreSQL `FOR UPDATE`): what a payment's record re-reads. */
export async function findInvoiceForUpdate(work: UnitOfWork, access: Access, id: string): Promise<StoredInvoice | undefined> {
  const q = work.db.selectFrom('invoices').selectAll().where(billedTo(access)).where('id', '=', id);
  const row = await lockedForUpdate(q, work.database.dialect).executeTakeFirst();
  return row && toStored(row);
}

/** The sum of an invoice's succeeded payments, cents (0 when it has none; failed attempts are not money paid). */
export async function amountPaid(db: Kysely<DB>, access: Access, invoiceId: string): Promise<number> {
  const row = await db
    .selectFrom('payments')
    .select((eb) => eb.fn.sum<string | number | null>('amount').as('paid'))
    .where('workspace_id', '=', access.workspaceId)
    .where('invoice_id', '=', invoiceId)
    .where('status', '=', 'succeeded')
    .executeTakeFirst();
  return Number(row?.paid ?? 0);
}
