import { type Static, Type } from 'typebox';
import { Id, Line, PageQuery, PathId, RefId, Timestamp } from '../../../lib/schemas.js';

export const PaymentMethodCreate = Type.Object(
  {
    clientId: Type.Optional(RefId('the client whose card it is (a client session: itself, the default)')),
    companyId: Type.Optional(RefId('the company whose card it is; with clientId, which of its companies (required when it has several)')),
    card: Type.Object(
      {
        number: Type.String({ pattern: '^[0-9]{12,19}$', description: 'the card number, digits only; the sandbox takes its test cards' }),
        expMonth: Type.Integer({ minimum: 1, maximum: 12 }),
        expYear: Type.Integer({ minimum: 2000, maximum: 2100 }),
        cvc: Type.Optional(Type.String({ pattern: '^[0-9]{3,4}$', description: 'checked by the processor, never stored' })),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false, title: 'PaymentMethodCreate' },
);
export type PaymentMethodCreate = Static<typeof PaymentMethodCreate>;

export const PaymentMethod = Type.Object(
  {
    id: Id,
    object: Type.Literal('paymentMethod'),
    type: Type.Literal('creditCard'),
    clientId: Type.Optional(Type.String({ description: 'the client whose card it is; absent for a company’s' })),
    companyId: Type.String(),
    brand: Type.String({ description: 'visa, mastercard, amex' }),
    last4Digits: Type.String(),
    expMonth: Type.Integer(),
    expYear: Type.Integer(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { additionalProperties: false, title: 'PaymentMethod' },
);
export type PaymentMethod = Static<typeof PaymentMethod>;

export const PaymentMethodListQuery = Type.Object(
  { ...PageQuery, clientId: Type.Optional(Type.String()), companyId: Type.Optional(Type.String()) },
  { additionalProperties: false },
);
export type PaymentMethodListQuery = Static<typeof PaymentMethodListQuery>;

export const InvoicePay = Type.Object(
  {
    paymentMethodId: Type.Optional(
      RefId('the card to charge; default: the newest card of the party billed (the client, else the company)'),
    ),
  },
  { additionalProperties: false, title: 'InvoicePay' },
);
export type InvoicePay = Static<typeof InvoicePay>;

const REFUND_STATUSES = ['pending', 'succeeded', 'failed'] as const;

export const RefundCreate = Type.Object(
  {
    paymentId: RefId('the succeeded payment to refund'),
    amount: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 100_000_000_000, description: 'cents; default: all that is left to refund of the payment' }),
    ),
    reason: Type.Optional(Line({ maxLength: 500, description: 'why, for the record' })),
  },
  { additionalProperties: false, title: 'RefundCreate' },
);
export type RefundCreate = Static<typeof RefundCreate>;

export const Refund = Type.Object(
  {
    id: Id,
    object: Type.Literal('refund'),
    paymentId: Id,
    invoiceId: Id,
    amount: Type.Integer({ description: 'cents' }),
    currency: Type.String(),
    status: Type.Enum([...REFUND_STATUSES]),
    reason: Type.Optional(Type.String()),
    failureMessage: Type.Optional(Type.String({ description: 'a failed refund: why' })),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { additionalProperties: false, title: 'Refund' },
);
export type Refund = Static<typeof Refund>;

export const RefundListQuery = Type.Object(
  { ...PageQuery, paymentId: Type.Optional(Type.String()), invoiceId: Type.Optional(Type.String()) },
  { additionalProperties: false },
);
export type RefundListQuery = Static<typeof RefundListQuery>;

export const PaymentMethodParams = Type.Object({ id: PathId('payment method id') }, { additionalProperties: false });
