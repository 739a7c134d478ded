import { type Static, Type } from 'typebox';
import { QA_PRINCIPAL_KINDS } from '../../../db/schema.js';
import { Id, PageQuery, PathId, RefId } from '../../../lib/schemas.js';

const QA_AGENT_TOKEN_MAX_SECONDS = 3600;
export const QA_AGENT_TOKEN_DEFAULT_SECONDS = 900;

export const QaPrincipal = Type.Object(
  {
    id: Type.String({ format: 'uuid', description: "the client's or internal user's own id" }),
    object: Type.Literal('qaPrincipal'),
    kind: Type.Enum([...QA_PRINCIPAL_KINDS], { description: 'client: a test client; internalUser: a test staff member' }),
    email: Type.String(),
    givenName: Type.String(),
    familyName: Type.String(),
    createdAt: Type.String({ format: 'date-time', description: 'when it was marked as a QA principal' }),
  },
  {
    title: 'QaPrincipal',
    description:
      'A client or internal user marked for testing. To the API it stays an ordinary client or internal user (listed, ' +
      'counted and changed like any other); the mark only lets the QA surface mint impersonation tokens for it.',
  },
);
export type QaPrincipal = Static<typeof QaPrincipal>;

export const QaPrincipalCreate = Type.Object(
  { clientId: Type.Optional(RefId('a client', { uuid: true })), internalUserId: Type.Optional(RefId('an internal user', { uuid: true })) },
  { additionalProperties: false, title: 'QaPrincipalCreate', description: 'exactly one of clientId and internalUserId: who to mark' },
);
export type QaPrincipalCreate = Static<typeof QaPrincipalCreate>;

export const QaPrincipalListQuery = Type.Object({ ...PageQuery }, { additionalProperties: false });
export type QaPrincipalListQuery = Static<typeof QaPrincipalListQuery>;

export const QaPrincipalParams = Type.Object(
  { workspaceId: PathId('workspace id'), principalId: PathId('QA principal id (the client or internal user id)') },
  { additionalProperties: false },
);

export const QaImpersonationTokenCreate = Type.Object(
  {
    apiKey: Type.String({
      maxLength: 200,
      description: 'an active app API key of the workspace: the token is encrypted with it, and only it may present the session',
    }),
    companyId: Type.Optional(
      Type.String({ format: 'uuid', description: 'a client principal only: one of its companies (default: its primary company)' }),
    ),
  },
  { additionalProperties: false, title: 'QaImpersonationTokenCreate' },
);
export type QaImpersonationTokenCreate = Static<typeof QaImpersonationTokenCreate>;

export const QaImpersonationToken = Type.Object(
  {
    principalId: Id,
    token: Type.String({
      description: 'the session token the official Node SDK decrypts with the app API key (as POST /admin/…/sessions answers)',
    }),
    tokenId: Id,
    expiresAt: Type.Integer({ description: 'Unix seconds; the session is refused (401) from then on' }),
  },
  { title: 'QaImpersonationToken' },
);
export type QaImpersonationToken = Static<typeof QaImpersonationToken>;

export const QaAgentTokenCreate = Type.Object(
  {
    apiKeyId: Type.String({ format: 'uuid', description: 'an active app API key of the workspace: the app the agent acts as' }),
    lifetimeSeconds: Type.Optional(
      Type.Integer({
        minimum: 60,
        maximum: QA_AGENT_TOKEN_MAX_SECONDS,
        description: `60–${QA_AGENT_TOKEN_MAX_SECONDS}, default ${QA_AGENT_TOKEN_DEFAULT_SECONDS}: how long the token lives`,
      }),
    ),
  },
  { additionalProperties: false, title: 'QaAgentTokenCreate' },
);
export type QaAgentTokenCreate = Static<typeof QaAgentTokenCreate>;

export const QaAgentToken = Type.Object(
  {
    token: Type.String({ description: 'send as `Authorization: Bearer <token>`: the rights of the app key, as POST /v1/token gives' }),
    tokenExpiresAt: Type.Integer({ description: 'Unix seconds; refused (401) from then on, or once the key is revoked' }),
    apiKeyId: Id,
    appId: Type.Optional(Id),
  },
  { title: 'QaAgentToken' },
);
export type QaAgentToken = Static<typeof QaAgentToken>;
