import { type Static, Type } from 'typebox';
import { Id, PageQuery, Timestamp } from '../../../lib/schemas.js';
import { BillingTerms, BillingTermsInput } from './invoices.schemas.js';
import { INTERVALS } from './periods.js';

export const SubscriptionCreate = Type.Object(
  {
    ...BillingTermsInput,
    interval: Type.Optional(
      Type.Enum([...INTERVALS, 'quarter', 'year'], {
        description:
          'day, week, month, quarterly or yearly (quarter and year accepted); default: the subscription template’s, ' +
          'else the first recurring price’s among the lines (then intervalCount defaults to theirs too)',
      }),
    ),
    intervalCount: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'default 1' })),
    collectionMethod: Type.Optional(Type.Enum(['sendInvoice', 'chargeAutomatically'], { description: 'default sendInvoice' })),
    scheduleStartDate: Type.Optional(Type.Integer({ minimum: 0, description: 'Unix seconds; default now' })),
    scheduleEndDate: Type.Optional(Type.Integer({ minimum: 0, description: 'Unix seconds: no period starts at or after it' })),
    scheduleIterations: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000, description: 'how many periods are billed' })),
  },
  { additionalProperties: false, title: 'SubscriptionCreate' },
);
export type SubscriptionCreate = Static<typeof SubscriptionCreate>;

/** pastDue: an invoice of it failed to be charged and is being retried; unpaid: its retries ran out (docs/api.md, Payments). */
const SUBSCRIPTION_STATUSES = ['notStarted', 'active', 'pastDue', 'unpaid', 'cancelled', 'ended'] as const;

export const Subscription = Type.Object(
  {
    id: Id,
    object: Type.Literal('subscription'),
    status: Type.Enum([...SUBSCRIPTION_STATUSES]),
    ...BillingTerms,
    interval: Type.Enum([...INTERVALS]),
    intervalCount: Type.Integer(),
    scheduleStartDate: Type.Integer({ description: 'Unix seconds' }),
    scheduleEndDate: Type.Optional(Type.Integer({ description: 'Unix seconds' })),
    scheduleIterations: Type.Optional(Type.Integer()),
    periodsBilled: Type.Integer(),
    nextBillingDate: Type.Optional(Timestamp),
    cancelledAt: Type.Optional(Timestamp),
    canceledAt: Type.Optional(Timestamp),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { additionalProperties: false, title: 'Subscription' },
);
export type Subscription = Static<typeof Subscription>;

export const SubscriptionListQuery = Type.Object(
  { ...PageQuery, clientId: Type.Optional(Type.String()), companyId: Type.Optional(Type.String()) },
  { additionalProperties: false },
);
export type SubscriptionListQuery = Static<typeof SubscriptionListQuery>;
