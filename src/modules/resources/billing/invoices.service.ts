import type { Database } from '../../../db/database.js';
import { listAs } from '../../../db/paging.js';
import { type UnitOfWork, unitOfWork } from '../../../db/unit-of-work.js';
import { type Caller, workspaceAccess } from '../../../lib/caller.js';
import { isoAt } from '../../../lib/clock.js';
import type { PdfDocument } from '../../../lib/pdf.js';
import { type FieldProblem, errors, orNotFound } from '../../../lib/errors.js';
import { recordAudit } from '../../../audit/index.js';
import { newRowId } from '../../../lib/row-id.js';
import { findClient, findCompany } from '../directory/index.js';
import { documentBrand } from '../workspaces/index.js';
import { type InvoiceParties, invoiceFileName, invoicePdf } from './invoice-pdf.js';
import * as repo from './invoices.repository.js';
import { recordPaid } from './payments.service.js';
import { type Invoice, type InvoiceCreate, type InvoiceUpdate, type Payment, invoiceSubject } from './invoices.schemas.js';
import { type Billed, type Terms, termsOf } from './terms.js';

const DAY_MS = 86_400_000;

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
 * Adds an invoice to a unit of work: an open one takes its number in the commit (takeInvoiceNumber), then its
 * row and its invoiceCreated entry are written, in the same transaction; a draft has no number until it is
 * finalised. The invoice, once the unit has committed.
 */
export function addInvoice(work: UnitOfWork, caller: Caller, input: NewInvoice): () => Invoice {
  const id = newRowId();
  if (input.status === 'draft') {
    const draft = writeInvoice(work, caller, input, id, null);
    return () => draft;
  }
  return repo.takeInvoiceNumber(work, caller.access, (number) => writeInvoice(work, caller, input, id, number));
}

/** "Invoice 0007", or "Draft invoice" before it has a number. */
export const invoiceName = (invoice: Invoice) => (invoice.number === undefined ? 'Draft invoice' : `Invoice ${invoice.number}`);

function writeInvoice(work: UnitOfWork, caller: Caller, input: NewInvoice, id: string, number: number | null): Invoice {
  const at = isoAt(input.at);
  const invoice = repo.insertInvoice(work, caller.access, {
    id,
    number,
    billed: input.billed,
    status: input.status,
    terms: input.terms,
    dueDate: isoAt(input.at + input.terms.daysUntilDue * DAY_MS),
    sentDate: input.status === 'open' ? at : null,
    billingReason: input.billingReason,
    collectionMethod: input.collectionMethod,
    subscription: input.subscription,
    // Automatic collection charges the party's card at once (the payment worker), then retries.
    nextPaymentAttemptAt: input.status === 'open' && input.collectionMethod === 'chargeAutomatically' ? at : null,
    at,
  });
  recordAudit(work, caller.actor, {
    eventType: 'invoiceCreated',
    description: `${invoiceName(invoice)} created`,
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
    addInvoice(work, caller, {
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

/** A draft of the caller's, read inside the unit: any other status is a 409 naming what may be done instead. */
async function draftOf(work: UnitOfWork, caller: Caller, id: string, change: string): Promise<repo.StoredInvoice> {
  const stored = orNotFound(await repo.findInvoice(work.db, caller.access, id), 'Invoice');
  const { status } = stored.invoice;
  if (status !== 'draft') throw errors.conflict(`Only a draft can be ${change}; this invoice is ${status} (void it instead).`);
  return stored;
}

/**
 * Edits a draft (invoiceUpdated, with the fields it had): the fields given replace the draft's, lineItems as a
 * whole; a templateId given fills what the body leaves out, as at creation. The terms are read and checked
 * first, outside the transaction; a draft changed meanwhile is a 409 (retry), never a lost edit.
 */
export async function updateDraft(database: Database, caller: Caller, id: string, input: InvoiceUpdate): Promise<Invoice> {
  const draft = orNotFound(await repo.findInvoice(database.db, caller.access, id), 'Invoice').invoice;
  const relines = input.lineItems !== undefined || input.templateId !== undefined;
  const namesClient = input.clientId !== undefined || input.clientUserId !== undefined || input.recipientId !== undefined;
  const fromTemplate = input.templateId !== undefined;
  const problems: FieldProblem[] = [];
  const { billed, terms } = await termsOf(
    database,
    caller,
    {
      ...input,
      // The parties: the body's, else the draft's (a new client without a company takes its own company).
      clientId: namesClient ? input.clientId : draft.clientId,
      companyId: input.companyId ?? (namesClient ? undefined : draft.companyId),
      lineItems: relines ? input.lineItems : [],
      memo: input.memo ?? (fromTemplate ? undefined : draft.memo),
      taxPercentage: input.taxPercentage ?? (fromTemplate ? undefined : draft.taxPercentage),
      daysUntilDue: input.daysUntilDue ?? draft.daysUntilDue,
      paymentMethodPreferences: input.paymentMethodPreferences ?? draft.paymentMethodPreferences,
    },
    problems,
  );
  if (problems.length > 0 || !billed || !terms) throw errors.invalidFields(problems);
  return unitOfWork(
    database,
    async (work) => {
      const stored = await draftOf(work, caller, id, 'edited');
      if (stored.invoice.updatedAt !== draft.updatedAt) throw errors.conflict('The draft changed while this edit was read; retry it.');
      const kept = stored.terms;
      const updatedTerms: Terms = relines
        ? terms
        : { ...terms, lineItems: kept.lineItems, currency: kept.currency, ...(kept.templateId ? { templateId: kept.templateId } : {}) };
      const invoice = repo.updateInvoice(work, caller.access, stored, {
        billed,
        terms: updatedTerms,
        dueDate: isoAt(Date.parse(stored.invoice.createdAt) + updatedTerms.daysUntilDue * DAY_MS),
        updatedAt: isoAt(caller.actor.at),
      });
      recordAudit(work, caller.actor, {
        eventType: 'invoiceUpdated',
        description: `${invoiceName(invoice)} updated`,
        context: { invoiceId: invoice.id, total: invoice.total },
        previousAttributes: changedFields(draft, invoice),
        subject: invoiceSubject(invoice),
      });
      return invoice;
    },
    { transaction: true },
  );
}

/** The fields an edit changed, with the values they had. */
function changedFields(before: Invoice, after: Invoice): Record<string, unknown> {
  const previous: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(before)) {
    if (field !== 'updatedAt' && JSON.stringify(value) !== JSON.stringify(after[field as keyof Invoice])) previous[field] = value;
  }
  return previous;
}

/**
 * Finalises a draft into an open invoice sent to its client (invoiceInitiated): it takes the workspace's next
 * number in the same transaction (no gaps), and its dates run from now. A draft made before drafts went
 * unnumbered keeps the number it took.
 */
export async function finalizeInvoice(database: Database, caller: Caller, id: string): Promise<Invoice> {
  const finalized = await unitOfWork(
    database,
    async (work) => {
      const draft = await draftOf(work, caller, id, 'finalised');
      const open = (number: number | null) => {
        const at = isoAt(caller.actor.at);
        const invoice = repo.updateInvoice(work, caller.access, draft, {
          number,
          status: 'open',
          sentDate: at,
          dueDate: isoAt(caller.actor.at + draft.terms.daysUntilDue * DAY_MS),
          updatedAt: at,
        });
        recordAudit(work, caller.actor, {
          eventType: 'invoiceInitiated',
          description: `${invoiceName(invoice)} finalised and sent`,
          context: { invoiceId: invoice.id, number: invoice.number, total: invoice.total },
          previousAttributes: { status: draft.invoice.status },
          subject: invoiceSubject(invoice),
        });
        return invoice;
      };
      if (draft.number !== null) {
        const invoice = open(draft.number);
        return () => invoice;
      }
      return repo.takeInvoiceNumber(work, caller.access, open);
    },
    { transaction: true },
  );
  return finalized();
}

/** Deletes a draft for good (invoiceDeleted, with its last state); an issued invoice is voided instead (409). */
export async function deleteDraft(database: Database, caller: Caller, id: string) {
  return unitOfWork(
    database,
    async (work) => {
      const { invoice } = await draftOf(work, caller, id, 'deleted');
      repo.deleteInvoice(work, caller.access, invoice.id);
      recordAudit(work, caller.actor, {
        eventType: 'invoiceDeleted',
        description: `${invoiceName(invoice)} deleted`,
        context: { invoiceId: invoice.id },
        subject: invoiceSubject(invoice),
      });
      return { id: invoice.id, object: 'invoice', deleted: true as const };
    },
    { transaction: true },
  );
}

export async function getInvoice(database: Database, caller: Caller, id: string): Promise<Invoice> {
  return orNotFound(await repo.findInvoice(database.db, caller.access, id), 'Invoice').invoice;
}

/**
 * Marks an open invoice paid (paidManually): its payment, invoicePaid and paymentSucceeded, in one transaction; automatic
 * charges stop, and its subscription, if past due or unpaid, is active again.
 */
export async function markPaid(database: Database, caller: Caller, id: string): Promise<{ invoice: Invoice; payment: Payment }> {
  return unitOfWork(
    database,
    async (work) => {
      // Locked while it is read (PostgreSQL: FOR UPDATE): a concurrent mark waits, then finds it paid (409), so it is paid once.
      const stored = orNotFound(await repo.findInvoiceForUpdate(work, caller.access, id), 'Invoice');
      const { status } = stored.invoice;
      if (status !== 'open') throw errors.conflict(`Only an open invoice can be paid; this one is ${status}.`);
      const at = isoAt(caller.actor.at);
      const invoice = repo.updateInvoice(work, caller.access, stored, {
        status: 'paid',
        paidAt: at,
        nextPaymentAttemptAt: null,
        updatedAt: at,
      });
      const payment = repo.insertPayment(work, caller.access, invoice, at);
      recordPaid(work, caller, invoice, payment, status);
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
      const stored = orNotFound(await repo.findInvoiceForUpdate(work, caller.access, id), 'Invoice');
      const { status } = stored.invoice;
      if (status === 'paid') throw errors.conflict('A paid invoice cannot be voided.');
      if (status === 'void') throw errors.conflict('This invoice is already void.');
      const at = isoAt(caller.actor.at);
      const invoice = repo.updateInvoice(work, caller.access, stored, {
        status: 'void',
        voidedAt: at,
        nextPaymentAttemptAt: null,
        updatedAt: at,
      });
      recordAudit(work, caller.actor, {
        eventType: 'invoiceVoided',
        description: `${invoiceName(invoice)} voided`,
        context: { invoiceId: invoice.id },
        previousAttributes: { status },
        subject: invoiceSubject(invoice),
      });
      return invoice;
    },
    { transaction: true },
  );
}

export const listPayments = listAs(repo.listPayments);

/**
 * An invoice the caller sees as a PDF (invoiceDownloaded): the same invoices as GET /invoices/{id}. The parties
 * are read workspace-wide: a caller who sees the invoice sees who it bills, as the invoice names them.
 */
export async function invoiceDocument(database: Database, caller: Caller, id: string): Promise<PdfDocument> {
  const { invoice } = orNotFound(await repo.findInvoice(database.db, caller.access, id), 'Invoice');
  const workspace = workspaceAccess(caller.access.workspaceId);
  const [brand, paid, client, company] = await Promise.all([
    documentBrand(database, caller),
    repo.amountPaid(database.db, caller.access, invoice.id),
    invoice.clientId === undefined ? undefined : findClient(database.db, workspace, invoice.clientId),
    findCompany(database.db, workspace, invoice.companyId),
  ]);
  const parties: InvoiceParties = { brand };
  if (client) parties.client = { name: `${client.givenName} ${client.familyName}`, email: client.email };
  if (company && !company.isPlaceholder) parties.company = { name: company.name };
  const stream = await invoicePdf(invoice, paid, parties);
  await unitOfWork(database, async (work) => {
    recordAudit(work, caller.actor, {
      eventType: 'invoiceDownloaded',
      description: `${invoiceName(invoice)} downloaded as a PDF`,
      context: { invoiceId: invoice.id, number: invoice.number },
      subject: invoiceSubject(invoice),
    });
  });
  return { fileName: invoiceFileName(invoice), stream };
}
