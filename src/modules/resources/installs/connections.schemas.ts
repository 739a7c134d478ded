import { type Static, Type } from 'typebox';
import { Id, PageQuery, RefId, Timestamp } from '../../../lib/schemas.js';

const CONNECTION_TYPES = ['embed', 'link'] as const;
const MEMBERSHIP_TYPES = ['individual', 'group', 'company'] as const;

export const AppConnection = Type.Object(
  {
    id: Id,
    object: Type.Literal('appConnection'),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    type: Type.Enum([...CONNECTION_TYPES]),
    membershipType: Type.Enum([...MEMBERSHIP_TYPES]),
    clientIds: Type.Unsafe<string[] | null>({
      type: ['array', 'null'],
      items: { type: 'string' },
      description: 'null for a company connection',
    }),
    companyId: Type.String({ description: 'the company given, or that of the clients' }),
    content: Type.String(),
    installId: Id,
    domainMetadata: Type.Object({
      autoSizeEmbed: Type.Boolean(),
      companyId: Type.String(),
      embedCode: Type.Optional(Type.String({ description: 'embed connections: the content' })),
      embedLink: Type.Optional(Type.String({ description: 'link connections: the content' })),
      memberIDs: Type.Unsafe<Record<string, boolean>>({
        type: 'object',
        additionalProperties: { type: 'boolean' },
        description: 'client id → true',
      }),
    }),
  },
  { additionalProperties: false, title: 'AppConnection' },
);
export type AppConnection = Static<typeof AppConnection>;

export const AppConnectionCreate = Type.Object(
  {
    type: Type.Enum([...CONNECTION_TYPES], { description: 'embed or link' }),
    content: Type.String({ minLength: 1, maxLength: 10_000, description: 'embed: the embed code; link: an http(s) URL' }),
    clientIds: Type.Optional(Type.Array(RefId(), { maxItems: 100, description: 'all in one company; at most 100' })),
    companyId: Type.Optional(RefId('required when no clientIds are given, or to choose when a client has several companies')),
    membershipType: Type.Optional(
      Type.Enum([...MEMBERSHIP_TYPES], { description: 'when absent: company only → company, one client → individual, several → group' }),
    ),
    autoSizeEmbed: Type.Optional(Type.Boolean({ description: 'default true' })),
  },
  { additionalProperties: false, title: 'AppConnectionCreate' },
);
export type AppConnectionCreate = Static<typeof AppConnectionCreate>;

export const AppConnectionListQuery = Type.Object(
  {
    ...PageQuery,
    clientId: Type.Optional(RefId('the connections this client sees: its own, its groups’ and its companies’')),
    companyId: Type.Optional(RefId('the connections of this company')),
  },
  { additionalProperties: false },
);
export type AppConnectionListQuery = Static<typeof AppConnectionListQuery>;
