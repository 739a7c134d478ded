import { type Static, Type } from 'typebox';
import { Id, PageQuery, PathId, RefId, Timestamp } from '../../../lib/schemas.js';

export const PaymentMethodPreference = Type.Object(
  { type: Type.Enum(['creditCard', 'bankAccount']), feePaidByClient: Type.Boolean() },
  { additionalProperties: false },
);

const LineItemInput = Type.Object(
  {
    amount: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 100_000_000, description: 'integer cents, at most 1,000,000.00 (or priceId)' }),
    ),
    priceId: Type.Optional(RefId('a price: its amount (and product)')),
    description: Type.Optional(Type.String({ maxLength: 1000 })),
    quantity: Type.Number({ exclusiveMinimum: 0, maximum: 100_000, description: 'may be decimal (at most 4 places), at most 100,000' }),
  },
  { additionalProperties: false },
);

/** The billing fields model both invoices and subscriptions take, in the SDK's names. */
export const BillingTermsInput = {
  templateId: Type.Optional(RefId('a template: its lineItems, memo, taxPercentage and currency')),
  lineItems: Type.Optional(Type.Array(LineItemInput, { minItems: 1, maxItems: 100, description: 'amount or priceId each; or templateId' })),
  memo: Type.Optional(Type.String({ maxLength: 1000 })),
  daysUntilDue: Type.Integer({ minimum: 0, maximum: 30, description: 'days from the invoice date to its due date' }),
  taxPercentage: Type.Optional(Type.Number({ minimum: 0, maximum: 100, description: '0–100, at most 3 decimals' })),
  paymentMethodPreferences: Type.Optional(
    Type.Array(PaymentMethodPreference, {
      maxItems: 2,
      description: 'creditCard → allowPaymentViaCC, bankAccount → allowPaymentViaACH; feePaidByClient → not absorbTransactionFees',
    }),
  ),
  clientId: Type.Optional(RefId('the client billed (= clientUserId)')),
  clientUserId: Type.Optional(RefId('the specification’s name for clientId')),
  recipientId: Type.Optional(RefId('deprecated SDK name for clientId')),
  companyId: Type.Optional(RefId('the company billed; required for a client of several companies')),
};

export const InvoiceCreate = Type.Object(
  { ...BillingTermsInput, createDraft: Type.Optional(Type.Boolean({ description: 'status draft (not sent) instead of open' })) },
  { additionalProperties: false, title: 'InvoiceCreate' },
);
export type InvoiceCreate = Static<typeof InvoiceCreate>;

/** A draft's edit: the fields given replace the draft's, the others stay (lineItems as a whole). */
export const InvoiceUpdate = Type.Object(
  { ...BillingTermsInput, daysUntilDue: Type.Optional(BillingTermsInput.daysUntilDue) },
  { additionalProperties: false, title: 'InvoiceUpdate' },
);
export type InvoiceUpdate = Static<typeof InvoiceUpdate>;

export const LineItem = Type.Object(
  {
    amount: Type.Integer({ description: 'unit amount, cents' }),
    description: Type.String(),
    quantity: Type.Number(),
    total: Type.Integer({ description: 'amount × quantity, rounded half up to a cent' }),
    priceId: Type.Optional(Type.String()),
    productId: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

/** The terms both invoices and subscriptions answer; a field without a value is left out (absent is absent). */
export const BillingTerms = {
  clientId: Type.Optional(Type.String({ description: 'the client billed; absent when the company is' })),
  clientUserId: Type.Optional(Type.String({ description: 'the same as clientId' })),
  recipientId: Type.String({ description: 'the client, else the company' }),
  companyId: Type.String(),
  memo: Type.String(),
  currency: Type.String(),
  taxPercentage: Type.Number(),
  lineItems: Type.Array(LineItem),
  daysUntilDue: Type.Integer(),
  collectionMethod: Type.Enum(['sendInvoice', 'chargeAutomatically']),
  paymentMethodPreferences: Type.Array(PaymentMethodPreference),
  allowPaymentViaCC: Type.Boolean(),
  allowPaymentViaACH: Type.Boolean(),
  absorbTransactionFees: Type.Boolean(),
};

const INVOICE_STATUSES = ['draft', 'open', 'paid', 'void'] as const;

export const Invoice = Type.Object(
  {
    id: Id,
    object: Type.Literal('invoice'),
    number: Type.Optional(
      Type.String({ description: 'per workspace, sequential from 0001, no gaps; taken when the invoice is finalised (absent on a draft)' }),
    ),
    status: Type.Enum([...INVOICE_STATUSES]),
    ...BillingTerms,
    subtotal: Type.Integer({ description: 'cents: the sum of the lines' }),
    taxAmount: Type.Integer({ description: 'cents: subtotal × taxPercentage / 100, rounded half up' }),
    total: Type.Integer({ description: 'cents: subtotal + taxAmount' }),
    dueDate: Timestamp,
    sentDate: Type.Optional(Timestamp),
    billingReason: Type.Enum(['manual', 'subscriptionCycle']),
    subscriptionId: Type.Optional(Type.String({ description: 'the subscription that billed it, if one did' })),
    paymentSuccessDate: Type.Optional(Timestamp),
    amountRefunded: Type.Optional(Type.Integer({ description: 'cents refunded so far; absent until a refund succeeds' })),
    attemptCount: Type.Optional(
      Type.Integer({ description: 'charges attempted so far (automatic collection, or a client paying); absent before the first' }),
    ),
    nextPaymentAttempt: Type.Optional(
      Type.String({
        format: 'date-time',
        description: 'automatic collection: when the next charge is attempted (after a failure: 1, 3, then 5 days later)',
      }),
    ),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { additionalProperties: false, title: 'Invoice' },
);
export type Invoice = Static<typeof Invoice>;

export const InvoiceListQuery = Type.Object(
  {
    ...PageQuery,
    clientId: Type.Optional(Type.String()),
    companyId: Type.Optional(Type.String()),
    status: Type.Optional(Type.Enum([...INVOICE_STATUSES])),
  },
  { additionalProperties: false },
);
export type InvoiceListQuery = Static<typeof InvoiceListQuery>;

export const Payment = Type.Object(
  {
    id: Id,
    object: Type.Literal('payment'),
    invoiceId: Id,
    status: Type.Enum(['succeeded', 'failed']),
    amount: Type.Integer({ description: 'cents' }),
    message: Type.Optional(Type.String({ description: 'a failed payment: why, for humans' })),
    declineCode: Type.Optional(
      Type.String({
        description: 'a failed payment: the processor’s decline code (generic_decline, insufficient_funds, lost_card, expired_card)',
      }),
    ),
    paymentMethod: Type.String({ description: 'manual (marked paid by an operator) or creditCard' }),
    paymentMethodId: Type.Optional(Type.String({ description: 'the card charged' })),
    last4Digits: Type.Optional(Type.String()),
    brand: Type.Optional(Type.String()),
    amountRefunded: Type.Optional(Type.Integer({ description: 'cents refunded so far; absent until a refund succeeds' })),
    feeAmount: Type.Object({ paidByPlatform: Type.Integer(), paidByClient: Type.Integer() }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { additionalProperties: false, title: 'Payment' },
);
export type Payment = Static<typeof Payment>;

export const PaymentListQuery = Type.Object({ ...PageQuery, invoiceId: Type.Optional(Type.String()) }, { additionalProperties: false });
export type PaymentListQuery = Static<typeof PaymentListQuery>;

export const InvoiceAdminParams = Type.Object(
  { workspaceId: PathId('workspace id'), invoiceId: PathId('invoice id') },
  { additionalProperties: false },
);

/** An invoice as the audit trail's subject (invoices' and payments' events). */
export const invoiceSubject = (invoice: Invoice) => ({ object: 'invoice', id: invoice.id, data: invoice, companyId: invoice.companyId });
