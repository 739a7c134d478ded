import { type Static, Type } from 'typebox';
import { Id, Name, PageQuery, PathId, RefId, Timestamp } from '../../../lib/schemas.js';
import { INTERVALS } from './periods.js';

/** Integer cents, within what an invoice line takes (a price or a template line is billed as one). */
const Amount = Type.Integer({ minimum: 0, maximum: 100_000_000, description: 'integer cents, at most 1,000,000.00' });
const Currency = Type.String({ pattern: '^[A-Za-z]{3}$', description: 'ISO 4217 code (stored lower-cased); default usd' });
const Description = Type.String({ maxLength: 1000 });
const IntervalInput = Type.Enum([...INTERVALS, 'quarter', 'year'], {
  description: 'day, week, month, quarterly or yearly (quarter and year accepted, stored as quarterly and yearly)',
});
const IntervalCount = Type.Integer({ minimum: 1, maximum: 1000, description: 'default 1' });
const Interval = Type.Enum([...INTERVALS]);
const PRODUCT_STATUSES = ['active', 'archived'] as const;

// ---- products ----

export const Product = Type.Object(
  {
    id: Id,
    object: Type.Literal('product'),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    name: Type.String(),
    description: Type.String(),
    status: Type.Enum([...PRODUCT_STATUSES]),
    imageUrls: Type.Array(Type.String()),
  },
  { additionalProperties: false, title: 'Product' },
);
export type Product = Static<typeof Product>;

export const ProductCreate = Type.Object(
  {
    name: Name,
    description: Type.Optional(Description),
    imageUrls: Type.Optional(Type.Array(Type.String({ format: 'uri', maxLength: 2048 }), { maxItems: 8 })),
  },
  { additionalProperties: false, title: 'ProductCreate' },
);
export type ProductCreate = Static<typeof ProductCreate>;

export const ProductUpdate = Type.Object(
  { name: Type.Optional(Name), description: Type.Optional(Description), status: Type.Optional(Type.Enum([...PRODUCT_STATUSES])) },
  { additionalProperties: false, title: 'ProductUpdate' },
);
export type ProductUpdate = Static<typeof ProductUpdate>;

export const ProductListQuery = Type.Object(
  { ...PageQuery, name: Type.Optional(Type.String({ description: 'exact name, case-insensitive' })) },
  { additionalProperties: false },
);
export type ProductListQuery = Static<typeof ProductListQuery>;

// ---- prices ----

export const Price = Type.Object(
  {
    id: Id,
    object: Type.Literal('price'),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    productId: Id,
    amount: Type.Integer({ description: 'cents' }),
    currency: Type.String({ description: 'lowercase ISO 4217' }),
    type: Type.Enum(['oneTime', 'recurring']),
    // A one-time price has neither: left out (absent is absent), not null.
    interval: Type.Optional(Interval),
    intervalCount: Type.Optional(Type.Integer()),
  },
  { additionalProperties: false, title: 'Price' },
);
export type Price = Static<typeof Price>;

export const PriceCreate = Type.Object(
  {
    productId: RefId('a product of the workspace'),
    amount: Amount,
    currency: Type.Optional(Currency),
    interval: Type.Optional(IntervalInput),
    intervalCount: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'only with interval; default 1' })),
  },
  { additionalProperties: false, title: 'PriceCreate', description: 'recurring when interval is given, otherwise oneTime' },
);
export type PriceCreate = Static<typeof PriceCreate>;

export const PriceListQuery = Type.Object(
  { ...PageQuery, productId: Type.Optional(Type.String({ description: 'the prices of one product' })) },
  { additionalProperties: false },
);
export type PriceListQuery = Static<typeof PriceListQuery>;

// ---- templates ----

const TemplateLineInput = Type.Object(
  {
    amount: Amount,
    description: Type.Optional(Description),
    quantity: Type.Number({ exclusiveMinimum: 0, maximum: 100_000, description: 'may be decimal (at most 4 places), at most 100,000' }),
  },
  { additionalProperties: false },
);

const TemplateInput = {
  name: Name,
  memo: Type.Optional(Type.String({ maxLength: 1000 })),
  taxPercentage: Type.Optional(Type.Number({ minimum: 0, maximum: 100, description: '0–100, at most 3 decimals; default 0' })),
  currency: Type.Optional(Currency),
  lineItems: Type.Array(TemplateLineInput, { minItems: 1, maxItems: 20 }),
};

export const InvoiceTemplateCreate = Type.Object(TemplateInput, { additionalProperties: false, title: 'InvoiceTemplateCreate' });
export type InvoiceTemplateCreate = Static<typeof InvoiceTemplateCreate>;

export const SubscriptionTemplateCreate = Type.Object(
  { ...TemplateInput, interval: IntervalInput, intervalCount: Type.Optional(IntervalCount) },
  { additionalProperties: false, title: 'SubscriptionTemplateCreate' },
);
export type SubscriptionTemplateCreate = Static<typeof SubscriptionTemplateCreate>;

export const TemplateLine = Type.Object(
  { amount: Type.Integer({ description: 'unit amount, cents' }), description: Type.String(), quantity: Type.Number() },
  { additionalProperties: false },
);
export type TemplateLine = Static<typeof TemplateLine>;

/** A template as answered: its kind, then the fields both kinds have (and a subscription template's interval). */
const templateFields = <K extends string>(object: K) => ({
  id: Id,
  object: Type.Literal(object),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  name: Type.String(),
  memo: Type.String(),
  taxPercentage: Type.Number({ description: '0–100, as given' }),
  currency: Type.String({ description: 'lowercase ISO 4217' }),
  lineItems: Type.Array(TemplateLine),
});

export const InvoiceTemplate = Type.Object(templateFields('invoiceTemplate'), { additionalProperties: false, title: 'InvoiceTemplate' });
export type InvoiceTemplate = Static<typeof InvoiceTemplate>;

export const SubscriptionTemplate = Type.Object(
  { ...templateFields('subscriptionTemplate'), interval: Interval, intervalCount: Type.Integer() },
  { additionalProperties: false, title: 'SubscriptionTemplate' },
);
export type SubscriptionTemplate = Static<typeof SubscriptionTemplate>;

export const TemplateListQuery = Type.Object({ ...PageQuery }, { additionalProperties: false });
export type TemplateListQuery = Static<typeof TemplateListQuery>;

// ---- admin paths ----

export const ProductAdminParams = Type.Object(
  { workspaceId: PathId('workspace id'), productId: PathId('product id') },
  { additionalProperties: false },
);
