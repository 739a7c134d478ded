import { type Static, Type } from 'typebox';
import { Id, PageQuery, Timestamp } from '../../lib/schemas.js';

const MEMBERSHIP_TYPES = ['individual', 'group', 'company'] as const;
/** A group's clients: enough for a team, few enough that one request checks them all at once. */
export const MAX_GROUP_MEMBERS = 100;
/** A message's text: a long message fits, a document does not (files carry those). */
export const MAX_MESSAGE_LENGTH = 10_000;

export const MessageChannel = Type.Object(
  {
    id: Id,
    object: Type.Literal('messageChannel'),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    membershipType: Type.Enum([...MEMBERSHIP_TYPES]),
    clientId: Type.Optional(Type.String({ description: 'individual channels: their client' })),
    companyId: Type.String({ description: 'the company given, or that of the clients' }),
    membershipEntityId: Type.Optional(
      Type.String({ deprecated: true, description: 'deprecated: the client of an individual channel, the company of a company channel' }),
    ),
    memberIds: Type.Optional(Type.Array(Type.String(), { description: 'the client members of an individual or group channel' })),
    lastMessageDate: Type.Optional(
      Type.String({ format: 'date-time', description: 'the newest message’s createdAt; absent while there is none' }),
    ),
  },
  { additionalProperties: false, title: 'MessageChannel' },
);
export type MessageChannel = Static<typeof MessageChannel>;

export const MessageChannelCreate = Type.Object(
  {
    membershipType: Type.Enum([...MEMBERSHIP_TYPES], { description: 'individual, group or company' }),
    membershipEntityId: Type.Optional(
      Type.String({ deprecated: true, description: 'deprecated: clientId of an individual channel, companyId of a company channel' }),
    ),
    memberIds: Type.Optional(
      Type.Array(Type.String(), {
        minItems: 1,
        maxItems: MAX_GROUP_MEMBERS,
        description: `group channels: their clients, all in one company (1–${MAX_GROUP_MEMBERS}); ignored for individual and company channels`,
      }),
    ),
    clientId: Type.Optional(Type.String({ description: 'individual channels: their client (required)' })),
    companyId: Type.Optional(
      Type.String({ description: 'required for company channels, and to choose when the client(s) have several companies' }),
    ),
  },
  { additionalProperties: false, title: 'MessageChannelCreate' },
);
export type MessageChannelCreate = Static<typeof MessageChannelCreate>;

export const MessageChannelListQuery = Type.Object(
  {
    ...PageQuery,
    membershipType: Type.Optional(Type.Enum([...MEMBERSHIP_TYPES], { description: 'only channels of this membership type' })),
    membershipEntityId: Type.Optional(Type.String({ deprecated: true, description: 'deprecated alias of clientId' })),
    memberId: Type.Optional(
      Type.String({
        description:
          'only channels this client or internal user belongs to: a client’s individual and group channels and its companies’ channels; ' +
          'an internal user’s channels are those of the companies they can see',
      }),
    ),
    clientId: Type.Optional(Type.String({ description: 'only the individual channels of this client' })),
  },
  { additionalProperties: false },
);
export type MessageChannelListQuery = Static<typeof MessageChannelListQuery>;

export const Message = Type.Object(
  {
    id: Id,
    object: Type.Literal('message'),
    senderId: Type.String({ description: 'the client or internal user who sent it' }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    channelId: Type.String(),
    text: Type.String(),
    isAttachmentIncluded: Type.Boolean({
      description: 'always false: this service takes no attachments on messages (share files instead)',
    }),
  },
  { additionalProperties: false, title: 'Message' },
);
export type Message = Static<typeof Message>;

export const MessageCreate = Type.Object(
  {
    text: Type.String({
      minLength: 1,
      maxLength: MAX_MESSAGE_LENGTH,
      pattern: '\\S',
      description: `1–${MAX_MESSAGE_LENGTH} characters, not only white space`,
    }),
    channelId: Type.String({ description: 'the channel, one the caller sees' }),
    senderId: Type.Optional(
      Type.String({
        description:
          'the client or internal user sending, a member of the channel. A session sends as its own user: absent or that user’s id ' +
          '(another is a 403); an API key or bearer token has no user of its own, so it must give one (400 otherwise)',
      }),
    ),
  },
  { additionalProperties: false, title: 'MessageCreate' },
);
export type MessageCreate = Static<typeof MessageCreate>;

export const MessageListQuery = Type.Object(
  {
    ...PageQuery,
    channelId: Type.String({ description: 'the channel whose messages to list (404 when the caller does not see it)' }),
  },
  { additionalProperties: false },
);
export type MessageListQuery = Static<typeof MessageListQuery>;
