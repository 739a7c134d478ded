import { type Static, Type } from 'typebox';
import { Id, PathId, RefId } from '../../../lib/schemas.js';

export const SessionCreate = Type.Object(
  {
    apiKey: Type.String({
      description: 'the app API key the session is for: the token is encrypted with it, and only it may present the session',
    }),
    clientId: Type.Optional(RefId('the client the session is for', { uuid: true })),
    companyId: Type.Optional(RefId("with clientId: one of the client's companies (default: its primary company)", { uuid: true })),
    internalUserId: Type.Optional(RefId('the internal user the session is for', { uuid: true })),
  },
  { additionalProperties: false, title: 'SessionCreate', description: 'exactly one of clientId and internalUserId' },
);
export type SessionCreate = Static<typeof SessionCreate>;

export const CreatedSession = Type.Object(
  {
    token: Type.String({
      description:
        'hex of (16-byte IV ‖ AES-128-CBC ciphertext) of JSON {workspaceId, clientId?, companyId?, internalUserId?, tokenId}; AES key = the first 32 hex characters of HMAC-SHA256(key = the app API key, message = "") read as 16 bytes',
    }),
    tokenId: Id,
    expiresAt: Type.Integer({ description: 'Unix seconds; the session is refused (401) from then on' }),
  },
  { title: 'CreatedSession' },
);
export type CreatedSession = Static<typeof CreatedSession>;

export const SessionParams = Type.Object(
  { workspaceId: PathId('workspace id'), tokenId: PathId('session token id') },
  { additionalProperties: false },
);

export const RevokedSession = Type.Object({ tokenId: Id, revoked: Type.Literal(true) }, { title: 'RevokedSession' });
