import { randomUUID } from 'node:crypto';
import type { Database } from '../../db/database.js';
import { listAs } from '../../db/paging.js';
import type { InvoicesTable } from '../../db/schema.js';
import { type UnitOfWork, unitOfWork } from '../../db/unit-of-work.js';
import type { Actor, Caller } from '../../lib/caller.js';
import { isoAt } from '../../lib/clock.js';
import { type FieldProblem, errors, orNotFound } from '../../lib/errors.js';
import { recordAudit } from '../../audit/index.js';
import * as repo from './invoices.repository.js';
import type { Invoice, InvoiceCreate, Payment } from './invoices.schemas.js';
import { type Billed, type Terms, amountsOf, termsOf } from './terms.js';

const DAY_MS = 86_400_000;

const invoiceSubject = (invoice: Invoice) => ({ object: 'invoice', id: invoice.id, data: invoice, companyId: invoice.companyId });

export interface NewInvoice {
  billed: Billed;
  terms: Terms;
  status: 'draft' | 'open';
  billingReason: 'manual' | 'subscriptionCycle';
  collectionMethod: 'sendInvoice' | 'chargeAutomatically';
  /** The invoice's date (a subscription's period start; else the request's time), ms. */
  at: number;
  subscription?: { id: string; periodIndex: number };
}

/**
 * Adds an invoice to a unit of work: its number is taken in the commit (takeInvoiceNumber), then its row
 * and its invoiceCreated entry are written, in the same transaction. The invoice, once the unit has committed.
 */
export function addInvoice(work: UnitOfWork, workspaceId: string, actor: Actor, input: NewInvoice): () => Invoice {
  const id = randomUUID();
  return repo.takeInvoiceNumber(work, workspaceId, (number) => writeInvoice(work, actor, input, id, workspaceId, number));
}

function writeInvoice(work: UnitOfWork, actor: Actor, input: NewInvoice, id: string, workspaceId: string, number: number): Invoice {
  const at = isoAt(input.at);
  const row: InvoicesTable = {
    id,
    workspace_id: workspaceId,
    number,
    client_id: input.billed.clientId,
    company_id: input.billed.companyId,
    status: input.status,
    terms: JSON.stringify(input.terms),
    ...(() => {
      const { subtotal, taxAmount, total } = amountsOf(input.terms);
      return { subtotal, tax_amount: taxAmount, total };
    })(),
    due_date: isoAt(input.at + input.terms.daysUntilDue * DAY_MS),
    sent_date: input.status === 'open' ? at : null,
    billing_reason: input.billingReason,
    collection_method: input.collectionMethod,
    subscription_id: input.subscription?.id ?? null,
    period_index: input.subscription?.periodIndex ?? null,
    paid_at: null,
    voided_at: null,
    created_at: at,
    updated_at: at,
  };
  repo.insertInvoice(work, row);
  const invoice = repo.toInvoice(row);
  recordAudit(work, actor, {
    eventType: 'invoiceCreated',
    description: `Invoice ${invoice.number} created`,
    context: { invoiceId: invoice.id, number: invoice.number, total: invoice.total },
    subject: invoiceSubject(invoice),
    at: input.at,
  });
  return invoice;
}

export async function createInvoice(database: Database, caller: Caller, input: InvoiceCreate): Promise<Invoice> {
  const problems: FieldProblem[] = [];
  const { billed, terms } = await termsOf(database, caller, input, problems);
  if (problems.length > 0 || !billed || !terms) throw errors.invalidFields(problems);
  const invoice = await unitOfWork(database, async (work) =>
    addInvoice(work, caller.access.workspaceId, caller.actor, {
      billed,
      terms,
      status: input.createDraft ? 'draft' : 'open',
      billingReason: 'manual',
      collectionMethod: 'sendInvoice',
      at: caller.actor.at,
    }),
  );
  return invoice();
}

export const listInvoices = listAs(repo.listInvoices);

export async function getInvoice(database: Database, caller: Caller, id: string): Promise<Invoice> {
  return repo.toInvoice(orNotFound(await repo.findInvoiceRow(database.db, caller.access, id.toLowerCase()), 'Invoice'));
}

/** Marks an open invoice paid (paidManually): its payment, invoicePaid and paymentSucceeded, in one transaction. */
export async function markPaid(database: Database, caller: Caller, id: string): Promise<{ invoice: Invoice; payment: Payment }> {
  return unitOfWork(
    database,
    async (work) => {
      const row = orNotFound(await repo.findInvoiceRow(work.db, caller.access, id.toLowerCase()), 'Invoice');
      if (row.status !== 'open') throw errors.conflict(`Only an open invoice can be paid; this one is ${row.status}.`);
      const at = isoAt(caller.actor.at);
      repo.updateInvoice(work, row.id, { status: 'paid', paid_at: at, updated_at: at });
      const invoice = repo.toInvoice({ ...row, status: 'paid', paid_at: at, updated_at: at });
      const payment = repo.insertPayment(work, caller.access, row, at);
      recordAudit(work, caller.actor, {
        eventType: 'invoicePaid',
        description: `Invoice ${invoice.number} paid`,
        context: { invoiceId: invoice.id, paidManually: true },
        previousAttributes: { status: row.status },
        subject: invoiceSubject(invoice),
      });
      recordAudit(work, caller.actor, {
        eventType: 'paymentSucceeded',
        description: `Payment of ${invoice.total} ${invoice.currency} for invoice ${invoice.number}`,
        context: { invoiceId: invoice.id, paymentId: payment.id, amount: payment.amount },
        subject: { object: 'payment', id: payment.id, data: payment, companyId: invoice.companyId },
      });
      return { invoice, payment };
    },
    { transaction: true },
  );
}

/** Voids a draft or open invoice (invoiceVoided); a paid one is a 409. */
export async function voidInvoice(database: Database, caller: Caller, id: string): Promise<Invoice> {
  return unitOfWork(
    database,
    async (work) => {
      const row = orNotFound(await repo.findInvoiceRow(work.db, caller.access, id.toLowerCase()), 'Invoice');
      if (row.status === 'paid') throw errors.conflict('A paid invoice cannot be voided.');
      if (row.status === 'void') throw errors.conflict('This invoice is already void.');
      const at = isoAt(caller.actor.at);
      repo.updateInvoice(work, row.id, { status: 'void', voided_at: at, updated_at: at });
      const invoice = repo.toInvoice({ ...row, status: 'void', voided_at: at, updated_at: at });
      recordAudit(work, caller.actor, {
        eventType: 'invoiceVoided',
        description: `Invoice ${invoice.number} voided`,
        context: { invoiceId: invoice.id },
        previousAttributes: { status: row.status },
        subject: invoiceSubject(invoice),
      });
      return invoice;
    },
    { transaction: true },
  );
}

export const listPayments = listAs(repo.listPayments);
