import { type Static, Type } from 'typebox';
import { Id, NonBlankText, PageQuery, RefId, Timestamp } from '../../../lib/schemas.js';

/** A message's text: a long message fits, a document does not (files carry those). */
export const MAX_MESSAGE_LENGTH = 10_000;

// Message channels' schemas are the channels component's (modules/components/channels), shared with file channels.

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
    text: NonBlankText({ minLength: 1, maxLength: MAX_MESSAGE_LENGTH, description: `1–${MAX_MESSAGE_LENGTH} characters` }),
    channelId: RefId('the channel, one the caller sees'),
    senderId: Type.Optional(
      RefId(
        'the client or internal user sending, a member of the channel. A person (a session, or signed in) sends as its own user: ' +
          'absent or that user’s id (another is a 403); an API key or bearer token has no user of its own, so it must give one (400 otherwise)',
      ),
    ),
  },
  { additionalProperties: false, title: 'MessageCreate' },
);
export type MessageCreate = Static<typeof MessageCreate>;

export const MessageListQuery = Type.Object(
  {
    ...PageQuery,
    channelId: RefId('the channel whose messages to list (404 when the caller does not see it)'),
  },
  { additionalProperties: false },
);
export type MessageListQuery = Static<typeof MessageListQuery>;

export const MessageStreamQuery = Type.Object(
  {
    channelId: Type.Optional(
      RefId('only this channel’s messages (404 when the caller does not see it); every channel the caller sees when absent'),
    ),
    since: Type.Optional(
      Type.String({
        maxLength: 64,
        description:
          'resume after this position: an event’s `id` (22 characters). The `Last-Event-ID` header, which EventSource sends when it reconnects, wins over it',
      }),
    ),
  },
  { additionalProperties: false },
);
export type MessageStreamQuery = Static<typeof MessageStreamQuery>;

export const MessageStreamHeaders = Type.Object({
  'last-event-id': Type.Optional(
    Type.String({ maxLength: 64, description: 'resume after this position (what EventSource sends when it reconnects): an event’s `id`' }),
  ),
});
