import { type Static, Type } from 'typebox';
import { Id, PageQuery, RefId, Timestamp } from '../../../lib/schemas.js';

// Message channels and file channels: one shape, written once (their answers differ by `object` and a message
// channel's lastMessageDate; their list filters by a file channel's companyId).

const MEMBERSHIP_TYPES = ['individual', 'group', 'company'] as const;
/** A group's clients: enough for a team, few enough that one request checks them all at once. */
export const MAX_GROUP_MEMBERS = 100;

/** The fields every channel answers, in order. */
const channelProperties = <O extends string>(object: O) => ({
  id: Id,
  object: Type.Literal(object),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  membershipType: Type.Enum([...MEMBERSHIP_TYPES]),
  clientId: Type.Optional(Type.String({ description: 'individual channels: their client' })),
  companyId: Type.String({ description: 'the company given, or that of the clients' }),
  membershipEntityId: Type.Optional(
    Type.String({ deprecated: true, description: 'deprecated: the client of an individual channel, the company of a company channel' }),
  ),
  memberIds: Type.Optional(Type.Array(Type.String(), { description: 'the client members of an individual or group channel' })),
});

export const MessageChannel = Type.Object(
  {
    ...channelProperties('messageChannel'),
    lastMessageDate: Type.Optional(
      Type.String({ format: 'date-time', description: 'the newest message’s createdAt; absent while there is none' }),
    ),
  },
  { additionalProperties: false, title: 'MessageChannel' },
);
export type MessageChannel = Static<typeof MessageChannel>;

export const FileChannel = Type.Object(
  {
    ...channelProperties('fileChannel'),
    clientPermissions: Type.Enum(['read-write', 'read-only'], {
      description:
        'what clients may do at the channel’s root (a folder says what they may do in it): read-write, or read-only ' +
        '(set with PUT /v1/files/root/permissions/)',
    }),
  },
  { additionalProperties: false, title: 'FileChannel' },
);
export type FileChannel = Static<typeof FileChannel>;

/** A new channel's body, as the SDK's createMessageChannel and createFileChannel give it. */
const channelCreate = (title: string) =>
  Type.Object(
    {
      membershipType: Type.Enum([...MEMBERSHIP_TYPES], { description: 'individual, group or company' }),
      membershipEntityId: Type.Optional(
        RefId('deprecated: clientId of an individual channel, companyId of a company channel', { deprecated: true }),
      ),
      memberIds: Type.Optional(
        Type.Array(RefId(), {
          minItems: 1,
          maxItems: MAX_GROUP_MEMBERS,
          description: `group channels: their clients, all in one company (1–${MAX_GROUP_MEMBERS}); ignored for individual and company channels`,
        }),
      ),
      clientId: Type.Optional(RefId('individual channels: their client (required)')),
      companyId: Type.Optional(RefId('required for company channels, and to choose when the client(s) have several companies')),
    },
    { additionalProperties: false, title },
  );

export const MessageChannelCreate = channelCreate('MessageChannelCreate');
export type MessageChannelCreate = Static<typeof MessageChannelCreate>;
export const FileChannelCreate = channelCreate('FileChannelCreate');
export type FileChannelCreate = Static<typeof FileChannelCreate>;

/** The list filters both kinds take. */
const listFilters = () => ({
  ...PageQuery,
  membershipType: Type.Optional(Type.Enum([...MEMBERSHIP_TYPES], { description: 'only channels of this membership type' })),
  membershipEntityId: Type.Optional(RefId('deprecated alias of clientId', { deprecated: true })),
  memberId: Type.Optional(
    RefId(
      'only channels this client or internal user belongs to: a client’s individual and group channels and its companies’ channels; ' +
        'an internal user’s channels are those of the companies they can see',
    ),
  ),
  clientId: Type.Optional(RefId('only the individual channels of this client')),
});

/** The orders of the message channels' list: by creation (the default), or the inbox's, by their last activity. */
const MESSAGE_CHANNEL_ORDERS = ['createdAt', 'lastMessageDate'] as const;

export const MessageChannelListQuery = Type.Object(
  {
    ...listFilters(),
    orderBy: Type.Optional(
      Type.Enum([...MESSAGE_CHANNEL_ORDERS], {
        description:
          '`createdAt` (the default): newest created first. `lastMessageDate`: the inbox, newest activity first (the channels ' +
          'with a message by their last one, then those without any, newest created first); a nextToken is a position in that ' +
          'order, so a walk through the pages sees each channel once at most, and a channel that gets a message during the ' +
          'walk moves to the first page (the walk, past it, may not see it again)',
      }),
    ),
  },
  { additionalProperties: false },
);
export type MessageChannelListQuery = Static<typeof MessageChannelListQuery>;
export const FileChannelListQuery = Type.Object(
  { ...listFilters(), companyId: Type.Optional(RefId('only the channels of this company')) },
  { additionalProperties: false },
);
export type FileChannelListQuery = Static<typeof FileChannelListQuery>;
