import { Type, type Static } from 'typebox';
import { INTERNAL_USER_ROLES } from '../../../lib/caller.js';
import { Email, Id, Name, PageQuery, RefId, Timestamp } from '../../../lib/schemas.js';

export const InternalUser = Type.Object(
  {
    id: Id,
    object: Type.Literal('internalUser'),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    email: Type.String({ format: 'email', description: 'unique login identifier within the workspace' }),
    givenName: Type.String(),
    familyName: Type.String(),
    role: Type.Enum([...INTERNAL_USER_ROLES]),
    isClientAccessLimited: Type.Boolean({ description: 'true: only the companies in companyAccessList (and their clients)' }),
    companyAccessList: Type.Array(Id, {
      description: 'company ids accessible when isClientAccessLimited; empty when access is to all companies',
    }),
    fallbackColor: Type.String({
      pattern: '^#[0-9a-fA-F]{6}$',
      description: 'background colour when no avatar is set, derived from the id',
    }),
    avatarImageUrl: Type.Optional(Type.String({ format: 'uri', description: 'present only when set' })),
  },
  { title: 'InternalUser', additionalProperties: false },
);
export type InternalUser = Static<typeof InternalUser>;

export const InternalUserListQuery = Type.Object({ ...PageQuery }, { additionalProperties: false });
export type InternalUserListQuery = Static<typeof InternalUserListQuery>;

export const InternalUserCreate = Type.Object(
  {
    email: Email,
    givenName: Name,
    familyName: Name,
    role: Type.Optional(Type.Enum([...INTERNAL_USER_ROLES], { description: 'staff when absent' })),
    companyAccessList: Type.Optional(
      Type.Array(RefId('a company', { uuid: true }), {
        minItems: 1,
        maxItems: 1000,
        description: 'when given, the user sees only these companies (and their clients); at most 1,000',
      }),
    ),
  },
  { additionalProperties: false, title: 'InternalUserCreate' },
);
export type InternalUserCreate = Static<typeof InternalUserCreate>;

export const InternalUserAccessUpdate = Type.Object(
  {
    role: Type.Optional(Type.Enum([...INTERNAL_USER_ROLES], { description: 'records internalUserAccessLevelChanged when it changes' })),
    companyAccessList: Type.Optional(
      Type.Union([Type.Array(RefId('a company', { uuid: true }), { minItems: 1, maxItems: 1000 }), Type.Null()], {
        description:
          'the companies the user may see (and their clients), at most 1,000; null: every company. Records ' +
          'internalUserClientVisibilitySet when it changes',
      }),
    ),
  },
  { additionalProperties: false, minProperties: 1, title: 'InternalUserAccessUpdate' },
);
export type InternalUserAccessUpdate = Static<typeof InternalUserAccessUpdate>;
