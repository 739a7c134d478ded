import { Type, type Static } from 'typebox';
import {
  CustomFieldsInput,
  CustomFieldsOutput,
  Email,
  Id,
  Name,
  NullableTimestamp,
  PageQuery,
  SearchQuery,
  Timestamp,
} from '../../../lib/schemas.js';
import { CLIENT_STATUSES, CREATION_METHODS } from '../../../db/schema.js';
export type { CreationMethod } from '../../../db/schema.js';

export const Client = Type.Object(
  {
    id: Id,
    object: Type.Literal('client'),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    givenName: Type.String(),
    familyName: Type.String(),
    email: Type.String({ format: 'email' }),
    companyId: Id,
    companyIds: Type.Array(Id, { description: 'every company of the client, the primary (`companyId`) first' }),
    customFields: CustomFieldsOutput,
    fallbackColor: Type.String({ pattern: '^#[0-9a-fA-F]{6}$' }),
    status: Type.Enum(CLIENT_STATUSES, { description: 'server-managed' }),
    creationMethod: Type.Enum(CREATION_METHODS, { description: 'internalUser for clients created through this API' }),
    avatarImageUrl: Type.Optional(Type.String({ format: 'uri' })),
    firstLoginDate: NullableTimestamp,
    lastLoginDate: NullableTimestamp,
    invitedBy: Type.Optional(Type.String({ description: 'id of the inviting internal user' })),
    inviteUrl: Type.Optional(
      Type.String({ format: 'uri', description: 'one-time invite link; only in the response that sent the invite' }),
    ),
  },
  { title: 'Client' },
);
export type Client = Static<typeof Client>;

const Writable = {
  givenName: Name,
  familyName: Name,
  companyId: Type.String({ format: 'uuid' }),
  customFields: CustomFieldsInput,
};

export const ClientCreate = Type.Object(
  {
    email: Email,
    givenName: Writable.givenName,
    familyName: Writable.familyName,
    companyId: Type.Optional(Writable.companyId),
    customFields: Type.Optional(Writable.customFields),
  },
  { additionalProperties: false, title: 'ClientCreate' },
);
export type ClientCreate = Static<typeof ClientCreate>;

export const ClientCreateQuery = Type.Object(
  { sendInvite: Type.Optional(Type.Boolean({ description: 'send an invite: status `invited` and `inviteUrl` in this response' })) },
  { additionalProperties: false },
);
export type ClientCreateQuery = Static<typeof ClientCreateQuery>;

export const ClientUpdate = Type.Object(
  {
    givenName: Type.Optional(Writable.givenName),
    familyName: Type.Optional(Writable.familyName),
    companyId: Type.Optional({ ...Writable.companyId, description: 'moves the client to this company (replacing its primary company)' }),
    customFields: Type.Optional(Writable.customFields),
  },
  { additionalProperties: false, title: 'ClientUpdate' },
);
export type ClientUpdate = Static<typeof ClientUpdate>;

export const ClientReplace = Type.Object(
  {
    givenName: Writable.givenName,
    familyName: Writable.familyName,
    companyId: Type.Optional({ ...Writable.companyId, description: 'absent: the client is left in a placeholder company of its own' }),
    customFields: Type.Optional({ ...Writable.customFields, description: 'replaces every custom field; absent clears them all' }),
  },
  { additionalProperties: false, title: 'ClientReplace' },
);
export type ClientReplace = Static<typeof ClientReplace>;

export const ClientListQuery = Type.Object(
  {
    ...PageQuery,
    email: Type.Optional(Type.String({ description: 'exact, case-insensitive' })),
    companyId: Type.Optional(Type.String({ description: 'clients with a membership in this company' })),
    givenName: Type.Optional(Type.String({ description: 'exact' })),
    familyName: Type.Optional(Type.String({ description: 'exact' })),
    q: SearchQuery('the clients with a word of their name ("given family") starting with it, or whose e-mail address does'),
  },
  { additionalProperties: false },
);
export type ClientListQuery = Static<typeof ClientListQuery>;

/** Server-managed: sending one on create or update is a 400 saying it is read-only. */
export const CLIENT_READ_ONLY = [
  'id',
  'object',
  'createdAt',
  'updatedAt',
  'creationMethod',
  'status',
  'avatarImageUrl',
  'firstLoginDate',
  'lastLoginDate',
  'invitedBy',
  'inviteUrl',
  'companyIds',
  'fallbackColor',
] as const;
