import { type Static, Type } from 'typebox';
import { Id, PageQuery, RefId, Timestamp } from '../../../lib/schemas.js';

const CtaParamsInput = Type.Union(
  [
    Type.Record(Type.String({ maxLength: 100 }), Type.String({ maxLength: 500 }), { maxProperties: 20 }),
    Type.String({ maxLength: 2000, description: 'a query string (a=1&b=2), as the SDK types it' }),
  ],
  { description: 'key/value pairs added to the call to action’s link: an object of strings (at most 20), or a query string' },
);
const CtaParams = Type.Unsafe<Record<string, string>>({
  type: 'object',
  additionalProperties: { type: 'string' },
  description: 'key/value pairs added to the call to action’s link',
});

const InProductInput = Type.Object(
  {
    title: Type.String({ minLength: 1, maxLength: 255, description: 'at most 255 characters' }),
    body: Type.Optional(Type.String({ maxLength: 10_000 })),
    ctaParams: Type.Optional(CtaParamsInput),
  },
  { additionalProperties: false },
);
const EmailInput = Type.Object(
  {
    subject: Type.Optional(Type.String({ maxLength: 255, description: 'default: the in-product title, else "New notification"' })),
    header: Type.Optional(Type.String({ maxLength: 255 })),
    body: Type.Optional(Type.String({ maxLength: 10_000 })),
    title: Type.Optional(Type.String({ maxLength: 255, description: 'the call to action’s button title' })),
    ctaParams: Type.Optional(CtaParamsInput),
  },
  { additionalProperties: false },
);

export const NotificationCreate = Type.Object(
  {
    senderId: RefId('a client, internal user or company of the workspace'),
    senderCompanyId: Type.Optional(RefId('the sending client’s company: required when that client has several')),
    recipientClientId: Type.Optional(RefId('a client (exactly one recipient: a client, an internal user, or a company)')),
    recipientInternalUserId: Type.Optional(RefId('an internal user')),
    recipientCompanyId: Type.Optional(
      RefId('alone: the company as a whole; with recipientClientId: that client’s company (required when it has several)'),
    ),
    recipientId: Type.Optional(RefId('deprecated (the SDK’s older name): a client or an internal user')),
    deliveryTargets: Type.Object(
      { inProduct: Type.Optional(InProductInput), email: Type.Optional(EmailInput) },
      { additionalProperties: false, description: 'at least one of inProduct and email' },
    ),
    notificationSettingId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description:
          'a notification setting of the calling app’s install: its surfaces bound the targets, the recipient’s preferences filter them',
      }),
    ),
    installId: Type.Optional(RefId('the install whose setting is named: required with notificationSettingId for a workspace key')),
  },
  { additionalProperties: false, title: 'NotificationCreate' },
);
export type NotificationCreate = Static<typeof NotificationCreate>;

const SENDER_TYPES = ['client', 'internalUser', 'company'] as const;

export const Notification = Type.Object(
  {
    id: Id,
    object: Type.Literal('notification'),
    appId: Type.String({ description: 'the sending app; "" when a workspace key sent it without an install of an app' }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    senderId: Type.String(),
    senderType: Type.Enum([...SENDER_TYPES]),
    recipientClientId: Type.Optional(Type.String()),
    recipientInternalUserId: Type.Optional(Type.String()),
    recipientCompanyId: Type.Optional(Type.String({ description: 'the company recipient, or the client recipient’s company' })),
    deliveryTargets: Type.Object({
      inProduct: Type.Optional(
        Type.Object({
          title: Type.String(),
          body: Type.Optional(Type.String()),
          isRead: Type.Boolean(),
          ctaParams: Type.Optional(CtaParams),
        }),
      ),
      email: Type.Optional(
        Type.Object({
          subject: Type.String(),
          header: Type.Optional(Type.String()),
          body: Type.Optional(Type.String()),
          title: Type.Optional(Type.String()),
          ctaParams: Type.Optional(CtaParams),
        }),
      ),
    }),
  },
  { additionalProperties: false, title: 'Notification' },
);
export type Notification = Static<typeof Notification>;

export const NotificationListQuery = Type.Object(
  {
    ...PageQuery,
    recipientClientId: Type.Optional(Type.String({ description: 'the notifications of this client' })),
    recipientInternalUserId: Type.Optional(Type.String({ description: 'the notifications of this internal user' })),
    includeRead: Type.Optional(Type.Boolean({ default: false, description: 'false (default): unread ones only' })),
  },
  { additionalProperties: false },
);
export type NotificationListQuery = Static<typeof NotificationListQuery>;
