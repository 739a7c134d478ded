import { type Static, Type } from 'typebox';
import { FreeFormValue, Id, NullableTimestamp, PageQuery, PathId, Timestamp } from '../../../lib/schemas.js';
import { WEBHOOK_EVENT_NAMES } from '../../../audit/index.js';

const NullableString = Type.Unsafe<string | null>({ type: ['string', 'null'] });
const NullableInteger = Type.Unsafe<number | null>({ type: ['integer', 'null'] });

export const WebhookEndpoint = Type.Object(
  {
    id: Id,
    object: Type.Literal('webhookEndpoint'),
    url: Type.String(),
    eventTypes: Type.Array(Type.String(), { description: '["*"]: every event' }),
    description: Type.String(),
    enabled: Type.Boolean(),
    disabledReason: Type.Unsafe<string | null>({
      type: ['string', 'null'],
      description: 'why the service disabled it (410 Gone, failing for 5 days), or null',
    }),
    failingSince: NullableTimestamp,
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { additionalProperties: false, title: 'WebhookEndpoint' },
);
export type WebhookEndpoint = Static<typeof WebhookEndpoint>;

export const CreatedWebhookEndpoint = Type.Object(
  {
    ...WebhookEndpoint.properties,
    secret: Type.String({ description: 'whsec_…: shown only now; verifies webhook-signature and x-copilot-signature' }),
  },
  { additionalProperties: false, title: 'CreatedWebhookEndpoint' },
);

export const WebhookEndpointCreate = Type.Object(
  {
    url: Type.String({ minLength: 1, maxLength: 2000, description: 'http(s); private and loopback addresses are refused' }),
    eventTypes: Type.Optional(
      Type.Array(Type.Enum(['*', ...WEBHOOK_EVENT_NAMES]), {
        minItems: 1,
        maxItems: 100,
        uniqueItems: true,
        description: 'dotted event names (client.created, …), or ["*"] for every event (the default)',
      }),
    ),
    description: Type.Optional(Type.String({ maxLength: 500 })),
  },
  { additionalProperties: false, title: 'WebhookEndpointCreate' },
);
export type WebhookEndpointCreate = Static<typeof WebhookEndpointCreate>;

export const RotatedSecret = Type.Object(
  {
    id: Id,
    secret: Type.String({ description: 'the new secret, shown only now' }),
    previousSecretValidUntil: Timestamp,
  },
  { additionalProperties: false, title: 'RotatedSecret' },
);

const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;

const Attempt = Type.Object(
  {
    attempt: Type.Integer(),
    statusCode: NullableInteger,
    durationMs: Type.Integer(),
    responseExcerpt: Type.String({ description: 'the first 1,000 characters of the response' }),
    error: NullableString,
    nextAttemptAt: NullableTimestamp,
    createdAt: Timestamp,
  },
  { additionalProperties: false },
);

export const WebhookDelivery = Type.Object(
  {
    id: Id,
    object: Type.Literal('webhookDelivery'),
    endpointId: Id,
    webhookId: Type.String({ description: 'the webhook-id header: the same for every attempt and replay' }),
    eventType: Type.String(),
    status: Type.Enum([...DELIVERY_STATUSES]),
    attempts: Type.Integer(),
    nextAttemptAt: NullableTimestamp,
    lastStatus: NullableInteger,
    lastError: NullableString,
    log: Type.Array(Attempt, { description: 'every attempt, first first' }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { additionalProperties: false, title: 'WebhookDelivery' },
);
export type WebhookDelivery = Static<typeof WebhookDelivery>;

export const DeliveryListQuery = Type.Object(
  {
    ...PageQuery,
    endpointId: Type.Optional(Type.String()),
    status: Type.Optional(Type.Enum([...DELIVERY_STATUSES])),
  },
  { additionalProperties: false },
);
export type DeliveryListQuery = Static<typeof DeliveryListQuery>;

export const EndpointListQuery = Type.Object({ ...PageQuery }, { additionalProperties: false });

export const ReplayFailed = Type.Object(
  { failedSince: Type.String({ format: 'date-time', description: 'every delivery that failed at or after this time' }) },
  { additionalProperties: false, title: 'ReplayFailed' },
);
export const Replayed = Type.Object({ replayed: Type.Integer() }, { additionalProperties: false });

export const EndpointParams = Type.Object(
  { workspaceId: PathId('workspace id'), endpointId: PathId('webhook endpoint id') },
  { additionalProperties: false },
);
export const DeliveryParams = Type.Object(
  { workspaceId: PathId('workspace id'), deliveryId: PathId('webhook delivery id') },
  { additionalProperties: false },
);

/** `POST /v1/webhooks/{event}` (the SDK's sendWebhook): the event's name and any JSON payload. */
export const AppEventParams = Type.Object(
  { event: Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9._:-]+$', description: 'the app’s event name' }) },
  { additionalProperties: false },
);
export const AppEventBody = FreeFormValue('any JSON: delivered as the webhook’s data.payload');
export const AppEventRecorded = Type.Object(
  { id: Id, object: Type.Literal('appEvent'), event: Type.String(), appId: Type.String(), createdAt: Timestamp },
  { additionalProperties: false, title: 'AppEventRecorded' },
);
