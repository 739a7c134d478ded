import type { Database } from '../../../db/database.js';
import { listAs } from '../../../db/paging.js';
import { type UnitOfWork, unitOfWork } from '../../../db/unit-of-work.js';
import { recordAudit } from '../../../audit/index.js';
import { type FieldProblem, errors, orNotFound } from '../../../lib/errors.js';
import { type Caller, ownUserOf, systemCaller } from '../../../lib/caller.js';
import { isoAt } from '../../../lib/clock.js';
import * as invoices from './invoices.repository.js';
import { type Invoice, type Payment, invoiceSubject } from './invoices.schemas.js';
import { formatMoney } from './money.js';
import type { PaymentProcessor } from './payment-processor.js';
import * as repo from './payments.repository.js';
import type { InvoicePay, PaymentMethod, PaymentMethodCreate, Refund, RefundCreate } from './payments.schemas.js';
import { setSubscriptionStatus } from './subscriptions.repository.js';
import { billedOf } from './terms.js';

const DAY_MS = 86_400_000;
/** After an automatic charge fails: retried 1, 3, then 5 days later; after the fourth failure, no more (Stripe's default is alike). */
const RETRY_DELAYS_DAYS = [1, 3, 5] as const;

const paymentSubject = (payment: Payment, companyId: string) => ({ object: 'payment', id: payment.id, data: payment, companyId });
const refundSubject = (refund: Refund, companyId: string) => ({ object: 'refund', id: refund.id, data: refund, companyId });

/** A card on file for a client (a client session: its own) or a company, tokenized by the processor: its number is never stored. */
export async function createPaymentMethod(
  database: Database,
  processor: PaymentProcessor,
  caller: Caller,
  input: PaymentMethodCreate,
): Promise<PaymentMethod> {
  // A client (a session, or signed in) that names no one: its own card, in the company it acts in.
  const own = ownUserOf(caller);
  const problems: FieldProblem[] = [];
  const billed =
    own?.type === 'client' && input.clientId === undefined && input.companyId === undefined
      ? { clientId: own.id, companyId: own.companyId }
      : await billedOf(database, caller, input, problems);
  const card = processor.tokenize(input.card);
  if ('problem' in card) problems.push({ path: 'body.card.number', message: card.problem });
  if (expiredAt(input.card, caller.actor.at)) problems.push({ path: 'body.card.expYear', message: 'the card has expired' });
  if (problems.length > 0 || !billed || 'problem' in card) throw errors.invalidFields(problems);
  return unitOfWork(database, async (work) =>
    repo.insertPaymentMethod(work, caller.access, {
      billed,
      brand: card.brand,
      last4: card.last4,
      expMonth: input.card.expMonth,
      expYear: input.card.expYear,
      token: card.token,
      at: isoAt(caller.actor.at),
    }),
  );
}

/** Whether a card has expired at this time (ms): it is good through the last day of its month. */
const expiredAt = (card: { expMonth: number; expYear: number }, at: number) => Date.UTC(card.expYear, card.expMonth, 1) <= at;

export const listPaymentMethods = listAs(repo.listPaymentMethods);

export async function getPaymentMethod(database: Database, caller: Caller, id: string): Promise<PaymentMethod> {
  return orNotFound(await repo.findPaymentMethod(database.db, caller.access, id), 'Payment method').method;
}

export async function deletePaymentMethod(database: Database, caller: Caller, id: string) {
  return unitOfWork(database, async (work) => {
    orNotFound(await repo.findPaymentMethod(work.db, caller.access, id), 'Payment method');
    repo.deletePaymentMethod(work, caller.access, id);
    return { id, object: 'paymentMethod', deleted: true as const };
  });
}

/** What one charge attempt decided. */
interface Attempt {
  stored: invoices.StoredInvoice;
  card?: repo.StoredPaymentMethod;
  outcome: invoices.CardCharge['outcome'];
}

/** Charges an invoice's card (the one named, else the party's newest): the processor's answer, or a decline of ours. */
async function attemptCharge(
  processor: PaymentProcessor,
  stored: invoices.StoredInvoice,
  card: repo.StoredPaymentMethod | undefined,
  at: number,
): Promise<Attempt> {
  const { invoice } = stored;
  if (!card)
    return { stored, outcome: { status: 'failed', declineCode: 'no_payment_method', message: 'No card is on file for the party billed.' } };
  if (expiredAt(card.method, at))
    return { stored, card, outcome: { status: 'failed', declineCode: 'expired_card', message: 'Your card has expired.' } };
  const outcome = await processor.charge({
    token: card.token,
    amount: invoice.total,
    currency: invoice.currency,
    // One key per attempt: a retried request (or a second process) finds the same charge, never a second one.
    idempotencyKey: `${invoice.id}:${(invoice.attemptCount ?? 0) + 1}`,
  });
  return { stored, card, outcome };
}

/**
 * Records an attempt, in one transaction with the invoice re-read: paid (its payment, invoicePaid, paymentSucceeded,
 * a past-due subscription active again) or a failed payment (paymentFailed; an automatic attempt schedules the next
 * or, after the last, leaves the subscription unpaid). An invoice paid, voided or attempted meanwhile is left as it
 * is: undefined (a charge that went through is then refunded by the caller).
 */
async function recordAttempt(
  work: UnitOfWork,
  caller: Caller,
  attempt: Attempt,
  automatic: boolean,
): Promise<{ invoice: Invoice; payment: Payment } | undefined> {
  const before = attempt.stored.invoice;
  const current = await invoices.findInvoiceForUpdate(work, caller.access, before.id);
  if (!current || current.invoice.status !== 'open' || current.invoice.attemptCount !== before.attemptCount) return undefined;
  const at = isoAt(caller.actor.at);
  const attemptCount = (before.attemptCount ?? 0) + 1;
  const { outcome, card } = attempt;
  const charge: invoices.CardCharge = {
    ...(card ? { card: { paymentMethodId: card.method.id, brand: card.method.brand, last4: card.method.last4Digits } } : {}),
    outcome,
  };
  if (outcome.status === 'succeeded') {
    const invoice = invoices.updateInvoice(work, caller.access, current, {
      status: 'paid',
      paidAt: at,
      attemptCount,
      nextPaymentAttemptAt: null,
      updatedAt: at,
    });
    const payment = invoices.insertPayment(work, caller.access, invoice, at, charge);
    recordPaid(work, caller, invoice, payment, before.status);
    return { invoice, payment };
  }
  const failures = automatic ? attemptCount : undefined;
  const retry =
    failures !== undefined && failures <= RETRY_DELAYS_DAYS.length ? caller.actor.at + RETRY_DELAYS_DAYS[failures - 1] * DAY_MS : null;
  const invoice = invoices.updateInvoice(work, caller.access, current, {
    attemptCount,
    ...(automatic ? { nextPaymentAttemptAt: retry === null ? null : isoAt(retry) } : {}),
    updatedAt: at,
  });
  const payment = invoices.insertPayment(work, caller.access, invoice, at, charge);
  recordAudit(work, caller.actor, {
    eventType: 'paymentFailed',
    description: `Payment of ${formatMoney(invoice.total, invoice.currency)} for invoice ${invoice.number} failed: ${outcome.message}`,
    context: {
      invoiceId: invoice.id,
      paymentId: payment.id,
      declineCode: outcome.declineCode,
      attemptCount,
      ...(retry ? { nextPaymentAttempt: isoAt(retry) } : {}),
    },
    subject: paymentSubject(payment, invoice.companyId),
  });
  if (invoice.subscriptionId && automatic) {
    setSubscriptionStatus(work, caller.access, invoice.subscriptionId, ['active', 'pastDue'], retry === null ? 'unpaid' : 'pastDue', at);
  }
  return { invoice, payment };
}

/** invoicePaid and paymentSucceeded for a paid invoice; its subscription, if past due or unpaid, is active again. */
export function recordPaid(work: UnitOfWork, caller: Caller, invoice: Invoice, payment: Payment, previousStatus: Invoice['status']) {
  recordAudit(work, caller.actor, {
    eventType: 'invoicePaid',
    description: `Invoice ${invoice.number} paid`,
    context: { invoiceId: invoice.id, paidManually: payment.paymentMethod === 'manual' },
    previousAttributes: { status: previousStatus },
    subject: invoiceSubject(invoice),
  });
  recordAudit(work, caller.actor, {
    eventType: 'paymentSucceeded',
    description: `Payment of ${formatMoney(payment.amount, invoice.currency)} for invoice ${invoice.number}`,
    context: { invoiceId: invoice.id, paymentId: payment.id, amount: payment.amount },
    subject: paymentSubject(payment, invoice.companyId),
  });
  if (invoice.subscriptionId) {
    setSubscriptionStatus(work, caller.access, invoice.subscriptionId, ['pastDue', 'unpaid'], 'active', isoAt(caller.actor.at));
  }
}

/** A charge recorded by nobody (the invoice changed while it was in flight) is given back whole. */
async function giveBack(processor: PaymentProcessor, attempt: Attempt) {
  if (attempt.outcome.status !== 'succeeded') return;
  await processor.refund({
    chargeReference: attempt.outcome.reference,
    amount: attempt.stored.invoice.total,
    idempotencyKey: `${attempt.outcome.reference}:void`,
  });
}

/**
 * Pays an open invoice with a card now (a client paying, or staff for it): 200 with the paid invoice; a declined
 * card is a 402 `payment_failed` whose `data` names the failed payment (recorded, with paymentFailed). Automatic
 * retries keep their schedule.
 */
export async function payInvoice(
  database: Database,
  processor: PaymentProcessor,
  caller: Caller,
  id: string,
  input: InvoicePay,
): Promise<Invoice> {
  const stored = orNotFound(await invoices.findInvoice(database.db, caller.access, id), 'Invoice');
  const { status } = stored.invoice;
  if (status !== 'open') throw errors.conflict(`Only an open invoice can be paid; this one is ${status}.`);
  const billed = { clientId: stored.invoice.clientId ?? null, companyId: stored.invoice.companyId };
  let card: repo.StoredPaymentMethod | undefined;
  if (input.paymentMethodId !== undefined) {
    card = await repo.findPaymentMethod(database.db, caller.access, input.paymentMethodId);
    if (!card || card.method.companyId !== billed.companyId || (card.method.clientId ?? null) !== billed.clientId)
      throw errors.invalidField('body.paymentMethodId', 'is not a card of the party this invoice bills');
  } else {
    card = await repo.defaultPaymentMethod(database.db, caller.access.workspaceId, billed);
    if (!card) throw errors.invalidField('body.paymentMethodId', 'is required: no card is on file for the party this invoice bills');
  }
  const attempt = await attemptCharge(processor, stored, card, caller.actor.at);
  const recorded = await unitOfWork(database, (work) => recordAttempt(work, caller, attempt, false), { transaction: true });
  if (!recorded) {
    await giveBack(processor, attempt);
    throw errors.conflict('The invoice changed while it was being paid (paid, voided or charged by another request); read it again.');
  }
  const { outcome } = attempt;
  if (outcome.status === 'failed') {
    throw errors.paymentFailed(outcome.message, { paymentId: recorded.payment.id, declineCode: outcome.declineCode });
  }
  return recorded.invoice;
}

/**
 * Makes the most overdue automatic charge of a clock scope (every workspace on the server's time, or one sandbox at
 * its clock's time): the invoice is claimed with a lease (its next attempt moved 10 minutes on, so no other process
 * takes it meanwhile), charged outside any transaction, and the outcome recorded. False when none is due.
 */
export async function chargeDue(
  database: Database,
  processor: PaymentProcessor,
  scope: { workspaceId: string | null; now: number },
): Promise<boolean> {
  const claimed = await unitOfWork(
    database,
    async (work) => {
      const due = await repo.claimDueCharge(work, database.dialect, scope);
      if (!due) return undefined;
      const caller = systemCaller(due.workspaceId, scope.now);
      const stored = orNotFound(await invoices.findInvoice(work.db, caller.access, due.invoiceId), 'Invoice');
      invoices.updateInvoice(work, caller.access, stored, {
        nextPaymentAttemptAt: isoAt(scope.now + CHARGE_LEASE_MS),
        updatedAt: stored.invoice.updatedAt,
      });
      return { caller, stored };
    },
    { transaction: true },
  );
  if (!claimed) return false;
  const { caller, stored } = claimed;
  const billed = { clientId: stored.invoice.clientId ?? null, companyId: stored.invoice.companyId };
  const card = await repo.defaultPaymentMethod(database.db, caller.access.workspaceId, billed);
  const attempt = await attemptCharge(processor, stored, card, scope.now);
  const recorded = await unitOfWork(database, (work) => recordAttempt(work, caller, attempt, true), { transaction: true });
  if (!recorded) await giveBack(processor, attempt);
  return true;
}

/** How long a claimed charge is another process's to make (then it is due again: made at least once, charged at most once by its key). */
const CHARGE_LEASE_MS = 10 * 60_000;

/**
 * Refunds a succeeded payment, whole or in part (refundRequested), through the processor that charged it (a payment
 * marked paid by an operator is refunded outside any processor, and recorded): refundSucceeded, with the payment's
 * and the invoice's amountRefunded in the same transaction, or refundFailed. Two transactions around the
 * processor's call: the pending refund holds its amount, so concurrent refunds never exceed the payment; one whose
 * request died between them is finished by the billing worker (settleStaleRefund).
 */
export async function createRefund(database: Database, processor: PaymentProcessor, caller: Caller, input: RefundCreate): Promise<Refund> {
  const pending = await unitOfWork(
    database,
    async (work) => {
      const found = orNotFound(await repo.findPaymentForRefund(work, caller.access, input.paymentId), 'Payment');
      const { payment, invoice } = found;
      if (payment.status !== 'succeeded') throw errors.conflict('Only a succeeded payment can be refunded; this one failed.');
      const left = payment.amount - (payment.amountRefunded ?? 0) - found.pendingRefunds;
      if (left <= 0) throw errors.conflict('This payment has been refunded in full.');
      const amount = input.amount ?? left;
      if (amount > left) throw errors.invalidField('body.amount', `is more than the ${left} cents left to refund of this payment`);
      const refund = repo.insertRefund(work, caller.access, {
        payment,
        companyId: invoice.invoice.companyId,
        amount,
        currency: invoice.invoice.currency,
        reason: input.reason ?? null,
        at: isoAt(caller.actor.at),
      });
      recordAudit(work, caller.actor, {
        eventType: 'refundRequested',
        description: `Refund of ${formatMoney(amount, refund.currency)} requested for invoice ${invoice.invoice.number}`,
        context: { invoiceId: invoice.invoice.id, paymentId: payment.id, refundId: refund.id, amount },
        subject: refundSubject(refund, invoice.invoice.companyId),
      });
      return { refund, processorRef: found.processorRef, companyId: invoice.invoice.companyId, number: invoice.invoice.number };
    },
    { transaction: true },
  );
  return settlePending(database, caller, pending, await refundAtProcessor(processor, pending));
}

/** Asks the processor for a refund (again, after a crash: the refund's id is the idempotency key); a payment marked paid by an operator has no charge there. */
const refundAtProcessor = (processor: PaymentProcessor, { processorRef, refund }: repo.PendingRefund) =>
  processorRef === null
    ? Promise.resolve({ status: 'succeeded' as const })
    : processor.refund({ chargeReference: processorRef, amount: refund.amount, idempotencyKey: refund.id });

/** Settles a pending refund with the processor's answer (refundSucceeded or refundFailed), unless another process did meanwhile. */
function settlePending(
  database: Database,
  caller: Caller,
  pending: repo.PendingRefund,
  outcome: Awaited<ReturnType<PaymentProcessor['refund']>>,
): Promise<Refund> {
  const { refund, companyId } = pending;
  return unitOfWork(
    database,
    async (work) => {
      const current = orNotFound(await repo.lockRefund(work, caller.access, refund.id), 'Refund');
      if (current.status !== 'pending') return current;
      const settled = repo.settleRefund(
        work,
        caller.access,
        refund,
        outcome.status === 'failed' ? { failureMessage: outcome.message } : {},
        isoAt(caller.actor.at),
      );
      recordAudit(work, caller.actor, {
        eventType: settled.status === 'succeeded' ? 'refundSucceeded' : 'refundFailed',
        description: `Refund of ${formatMoney(refund.amount, refund.currency)} for invoice ${pending.number} ${settled.status === 'succeeded' ? 'succeeded' : `failed: ${settled.failureMessage}`}`,
        context: { invoiceId: refund.invoiceId, paymentId: refund.paymentId, refundId: refund.id, amount: refund.amount },
        subject: refundSubject(settled, companyId),
      });
      return settled;
    },
    { transaction: true },
  );
}

/** How long a refund stays pending before the billing worker finishes it: its request died between its two transactions. */
const REFUND_LEASE_MS = 10 * 60_000;

/**
 * Finishes a refund left pending for longer than REFUND_LEASE_MS (on the server's time, or a sandbox's clock): claimed
 * for another lease, asked of the processor again under the same idempotency key (which answers as it did the first
 * time), and settled. False when none is left.
 */
export async function settleStaleRefund(
  database: Database,
  processor: PaymentProcessor,
  scope: { workspaceId: string | null; now: number },
): Promise<boolean> {
  const stale = await unitOfWork(
    database,
    (work) =>
      repo.claimStaleRefund(work, database.dialect, {
        workspaceId: scope.workspaceId,
        staleBefore: isoAt(scope.now - REFUND_LEASE_MS),
        at: isoAt(scope.now),
      }),
    { transaction: true },
  );
  if (!stale) return false;
  await settlePending(database, systemCaller(stale.workspaceId, scope.now), stale, await refundAtProcessor(processor, stale));
  return true;
}

export const listRefunds = listAs(repo.listRefunds);

export async function getRefund(database: Database, caller: Caller, id: string): Promise<Refund> {
  return orNotFound(await repo.findRefund(database.db, caller.access, id), 'Refund');
}
