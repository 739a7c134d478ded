import type { Database } from '../../../db/database.js';
import type { Caller } from '../../../lib/caller.js';
import type { FieldProblem } from '../../../lib/errors.js';
import { existingCompanyIds, visibleClientCompanies } from '../directory/index.js';
import { findInvoiceTemplate, findPrice, findSubscriptionTemplate } from './catalog.repository.js';
import { DEFAULT_CURRENCY, type Interval } from './periods.js';
import { QUANTITY_PLACES, TAX_PLACES, lineTotal, scaled, taxOf } from './money.js';
import type { BillingTermsInput, LineItem, PaymentMethodPreference } from './invoices.schemas.js';
import type { Static } from 'typebox';

type TermsInput = { [K in keyof typeof BillingTermsInput]?: Static<(typeof BillingTermsInput)[K]> };
type Line = Static<typeof LineItem>;
type Preference = Static<typeof PaymentMethodPreference>;

/** What an invoice (or each invoice of a subscription) bills, as stored with it (JSON). */
export interface Terms {
  lineItems: Line[];
  memo: string;
  currency: string;
  taxPercentage: number;
  daysUntilDue: number;
  paymentMethodPreferences: Preference[];
  templateId?: string;
}

/** Who is billed: a client in one of its companies, or a company. */
export interface Billed {
  clientId: string | null;
  companyId: string;
}

/** An invoice's amounts from its terms: each line rounded once, tax on the subtotal rounded once. */
export function amountsOf(terms: Terms) {
  const subtotal = terms.lineItems.reduce((sum, line) => sum + line.total, 0);
  const taxAmount = taxOf(subtotal, terms.taxPercentage);
  return { subtotal, taxAmount, total: subtotal + taxAmount };
}

/** The preferences as the specification's three booleans. */
function preferenceFlags(preferences: readonly Preference[]) {
  return {
    allowPaymentViaCC: preferences.some((p) => p.type === 'creditCard'),
    allowPaymentViaACH: preferences.some((p) => p.type === 'bankAccount'),
    absorbTransactionFees: !preferences.some((p) => p.feePaidByClient),
  };
}

/** The fields invoices and subscriptions both answer, from a row's parties and its stored terms. */
export function billingFields(row: {
  client_id: string | null;
  company_id: string;
  terms: string;
  collection_method: 'sendInvoice' | 'chargeAutomatically';
}) {
  const terms = JSON.parse(row.terms) as Terms;
  return {
    clientId: row.client_id ?? undefined,
    clientUserId: row.client_id ?? undefined,
    recipientId: row.client_id ?? row.company_id,
    companyId: row.company_id,
    memo: terms.memo,
    currency: terms.currency,
    taxPercentage: terms.taxPercentage,
    lineItems: terms.lineItems,
    daysUntilDue: terms.daysUntilDue,
    collectionMethod: row.collection_method,
    paymentMethodPreferences: terms.paymentMethodPreferences,
    ...preferenceFlags(terms.paymentMethodPreferences),
  };
}

/** The client and company billed: they must exist (and be seen) and belong together; a client of several companies names one. */
export async function billedOf(
  database: Database,
  caller: Caller,
  input: TermsInput,
  problems: FieldProblem[],
): Promise<Billed | undefined> {
  const clientId = input.clientId ?? input.clientUserId ?? input.recipientId;
  const { companyId } = input;
  const clientPath =
    input.clientId !== undefined ? 'body.clientId' : input.clientUserId !== undefined ? 'body.clientUserId' : 'body.recipientId';
  if (clientId === undefined) {
    if (companyId === undefined) {
      problems.push({ path: 'body.clientId', message: 'or companyId is required: who is billed' });
      return undefined;
    }
    if (!(await existingCompanyIds(database.db, caller.access, [companyId])).has(companyId)) {
      problems.push({ path: 'body.companyId', message: 'is not a company of this workspace' });
      return undefined;
    }
    return { clientId: null, companyId };
  }
  const companies = (await visibleClientCompanies(database.db, caller.access, [clientId])).get(clientId) ?? [];
  if (companies.length === 0) {
    problems.push({ path: clientPath, message: 'is not a client of this workspace' });
    return undefined;
  }
  if (companyId !== undefined && !companies.includes(companyId)) {
    problems.push({ path: 'body.companyId', message: 'is not a company of the client' });
    return undefined;
  }
  if (companyId === undefined && companies.length > 1) {
    problems.push({ path: 'body.companyId', message: 'is required: the client belongs to several companies' });
    return undefined;
  }
  return { clientId, companyId: companyId ?? companies[0] };
}

/** How often a subscription bills: every `intervalCount` `interval`s. */
export interface Cycle {
  readonly interval: Interval;
  readonly intervalCount: number;
}

/**
 * Reads the billing fields (contract §3): the lines (amounts, or prices, or a template's), tax, memo,
 * currency and preferences, each checked; every problem named.
 */
export async function termsOf(
  database: Database,
  caller: Caller,
  input: TermsInput & { daysUntilDue: number },
  problems: FieldProblem[],
): Promise<{ billed?: Billed; terms?: Terms; cycle?: Cycle }> {
  const billed = await billedOf(database, caller, input, problems);
  // An invoice template, or a subscription template (the SDK names either `templateId`).
  const { templateId } = input;
  const template =
    templateId === undefined
      ? undefined
      : ((await findInvoiceTemplate(database.db, caller.access, templateId)) ??
        (await findSubscriptionTemplate(database.db, caller.access, templateId)));
  if (input.templateId !== undefined && !template)
    problems.push({ path: 'body.templateId', message: 'is not an invoice or subscription template of this workspace' });
  if (input.lineItems === undefined && input.templateId === undefined) {
    problems.push({ path: 'body.lineItems', message: 'or templateId is required' });
  }
  const taxPercentage = input.taxPercentage ?? template?.taxPercentage ?? 0;
  if (scaled(taxPercentage, TAX_PLACES) === null)
    problems.push({ path: 'body.taxPercentage', message: `has more than ${TAX_PLACES} decimals` });
  let currency = template?.currency ?? DEFAULT_CURRENCY;
  // A subscription's billing cycle when the body gives none (the SDK makes `interval` optional): its
  // subscription template's, else the first recurring price's among the lines.
  let cycle: Cycle | undefined =
    template && 'interval' in template ? { interval: template.interval, intervalCount: template.intervalCount } : undefined;
  const lines: Line[] = [];
  if (input.lineItems !== undefined) {
    for (const [index, item] of input.lineItems.entries()) {
      const path = `body.lineItems.${index}`;
      if (scaled(item.quantity, QUANTITY_PLACES) === null) {
        problems.push({ path: `${path}.quantity`, message: `has more than ${QUANTITY_PLACES} decimals` });
        continue;
      }
      if ((item.amount === undefined) === (item.priceId === undefined)) {
        problems.push({ path, message: 'needs exactly one of amount and priceId' });
        continue;
      }
      let amount = item.amount;
      let productId: string | undefined;
      if (item.priceId !== undefined) {
        const price = await findPrice(database.db, caller.access, item.priceId);
        if (!price) {
          problems.push({ path: `${path}.priceId`, message: 'is not a price of this workspace' });
          continue;
        }
        amount = price.amount;
        productId = price.productId;
        currency = price.currency;
        if (!cycle && price.interval !== undefined) cycle = { interval: price.interval, intervalCount: price.intervalCount ?? 1 };
      }
      lines.push({
        amount: amount as number,
        description: item.description ?? '',
        quantity: item.quantity,
        total: lineTotal(amount as number, item.quantity),
        ...(item.priceId !== undefined ? { priceId: item.priceId, productId } : {}),
      });
    }
  } else if (template) {
    for (const item of template.lineItems) {
      lines.push({
        amount: item.amount,
        description: item.description ?? '',
        quantity: item.quantity,
        total: lineTotal(item.amount, item.quantity),
      });
    }
  }
  if (problems.length > 0 || !billed) return {};
  return {
    billed,
    ...(cycle ? { cycle } : {}),
    terms: {
      lineItems: lines,
      memo: input.memo ?? template?.memo ?? '',
      currency,
      taxPercentage,
      daysUntilDue: input.daysUntilDue,
      paymentMethodPreferences: input.paymentMethodPreferences ?? [],
      ...(template ? { templateId: template.id } : {}),
    },
  };
}
