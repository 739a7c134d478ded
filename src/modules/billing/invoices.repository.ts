import { randomUUID } from 'node:crypto';
import { type ExpressionBuilder, type Kysely, type SelectQueryBuilder, sql } from 'kysely';
import { type Page, type PageTokens, fetchPage, pageScope, preparedList } from '../../db/paging.js';
import { nonEmpty } from '../../db/rows.js';
import type { DB, InvoicesTable, PaymentsTable } from '../../db/schema.js';
import { type FullRow, preparedWrite } from '../../db/prepared.js';
import type { UnitOfWork } from '../../db/unit-of-work.js';
import type { Access } from '../../lib/caller.js';
import type { Invoice, InvoiceListQuery, Payment, PaymentListQuery } from './invoices.schemas.js';
import { billingFields } from './terms.js';

const invoiceNumber = (n: number) => String(n).padStart(4, '0');

export function toInvoice(row: InvoicesTable): Invoice {
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
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Billing a client session sees: its own, and its companies' (billed to the company); a limited principal its companies'. */
export function billedTo(access: Access) {
  return <T extends 'invoices' | 'subscriptions'>(eb: ExpressionBuilder<DB, T>) => {
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

export async function findInvoiceRow(db: Kysely<DB>, access: Access, id: string): Promise<InvoicesTable | undefined> {
  return db.selectFrom('invoices').selectAll().where(visibleInvoices(access)).where('id', '=', id).executeTakeFirst();
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
export function takeInvoiceNumber<T>(work: UnitOfWork, workspaceId: string, then: (number: number) => T): () => T {
  return work.writeReturning(takeNumber(work.db, { workspaceId }), (row) => then(Number(row?.last_number)));
}

const insertInvoiceRow = preparedWrite('insert_invoice', (db, row: FullRow<'invoices'>) => db.insertInto('invoices').values(row));

export function insertInvoice(work: UnitOfWork, row: InvoicesTable): void {
  work.write(insertInvoiceRow(work.db, row));
}

export function updateInvoice(work: UnitOfWork, id: string, changes: Partial<InvoicesTable>): void {
  work.write(work.db.updateTable('invoices').set(changes).where('id', '=', id));
}

export function deleteInvoice(work: UnitOfWork, id: string): void {
  work.write(work.db.deleteFrom('invoices').where('id', '=', id));
}

function toPayment(row: PaymentsTable): Payment {
  return {
    id: row.id,
    object: 'payment',
    invoiceId: row.invoice_id,
    status: row.status,
    amount: Number(row.amount),
    paymentMethod: row.payment_method,
    feeAmount: { paidByPlatform: 0, paidByClient: 0 },
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function insertPayment(work: UnitOfWork, access: Access, invoice: InvoicesTable, at: string): Payment {
  const row: PaymentsTable = {
    id: randomUUID(),
    workspace_id: access.workspaceId,
    invoice_id: invoice.id,
    status: 'succeeded',
    amount: Number(invoice.total),
    payment_method: 'manual',
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
