import { Type, type Static } from 'typebox';
import { Email, Id, Name, Page, PageQuery, Timestamp } from '../../lib/schemas.js';

export const ROLES = ['admin', 'staff'] as const;

export const InternalUser = Type.Object(
  {
    id: Id,
    object: Type.Literal('internalUser'),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    email: Type.String({ format: 'email', description: 'unique login identifier within the workspace' }),
    givenName: Type.String(),
    familyName: Type.String(),
    role: Type.Union([Type.Literal('admin'), Type.Literal('staff')]),
    isClientAccessLimited: Type.Boolean({ description: 'true: only the companies in companyAccessList (and their clients)' }),
    companyAccessList: Type.Array(Id, { description: 'company ids accessible when isClientAccessLimited; empty when access is to all companies' }),
    fallbackColor: Type.String({ pattern: '^#[0-9a-fA-F]{6}$', description: 'background colour when no avatar is set, derived from the id' }),
    avatarImageUrl: Type.Optional(Type.String({ format: 'uri', description: 'present only when set' })),
  },
  { title: 'InternalUser', additionalProperties: false },
);
export type InternalUser = Static<typeof InternalUser>;

export const InternalUserPage = Type.Object(Page(InternalUser).properties, { title: 'InternalUserPage', additionalProperties: false });

export const InternalUserListQuery = Type.Object({ ...PageQuery }, { additionalProperties: false });
export type InternalUserListQuery = Static<typeof InternalUserListQuery>;

// A plain string, not `format: uuid`: a malformed id is a 404 like any unknown one, not a 400.
export const InternalUserParams = Type.Object({ id: Type.String({ description: 'internal user id (UUID)' }) }, { additionalProperties: false });
export type InternalUserParams = Static<typeof InternalUserParams>;

export const InternalUserCreate = Type.Object(
  {
    email: Email,
    givenName: Name,
    familyName: Name,
    role: Type.Optional(Type.Enum([...ROLES], { description: 'staff when absent' })),
    companyAccessList: Type.Optional(Type.Array(Id, { minItems: 1, description: 'when given, the user sees only these companies (and their clients)' })),
  },
  { additionalProperties: false, title: 'InternalUserCreate' },
);
export type InternalUserCreate = Static<typeof InternalUserCreate>;
