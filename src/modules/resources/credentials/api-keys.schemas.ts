import { type Static, Type } from 'typebox';
import { Id, NullableTimestamp, PathId, RefId, Timestamp } from '../../../lib/schemas.js';
export type { ApiKeyKind } from '../../../db/schema.js';

const Label = Type.String({ minLength: 1, maxLength: 100, pattern: '\\S', description: 'what the key is for, to tell keys apart' });

/** A workspace key without `appId`; an app key with it. */
export const ApiKeyCreate = Type.Object(
  { appId: Type.Optional(RefId('the app the key is for', { uuid: true })), label: Type.Optional(Label) },
  { additionalProperties: false, title: 'ApiKeyCreate' },
);
export type ApiKeyCreate = Static<typeof ApiKeyCreate>;

/** A key as the admin surface lists it: never its secret (only its hash is stored). */
export const ApiKey = Type.Object(
  {
    id: Id,
    prefix: Type.String({ description: 'the key’s first characters (`ppk_` and six of its lookup), to tell keys apart; never its secret' }),
    kind: Type.Union([Type.Literal('workspace'), Type.Literal('app')]),
    appId: Type.Union([Id, Type.Null()]),
    label: Type.Union([Type.String(), Type.Null()]),
    createdAt: Timestamp,
    revokedAt: NullableTimestamp,
  },
  { title: 'ApiKey' },
);
export type ApiKey = Static<typeof ApiKey>;

export const ApiKeyList = Type.Object({ data: Type.Array(ApiKey) }, { title: 'ApiKeyList' });

export const CreatedApiKey = Type.Object(
  { apiKeyId: Id, apiKey: Type.String({ description: 'the key, shown only now' }), appId: Type.Optional(Id) },
  { title: 'CreatedApiKey' },
);

export const RevokedApiKey = Type.Object({ apiKeyId: Id, revoked: Type.Literal(true) }, { title: 'RevokedApiKey' });

export const ApiKeyParams = Type.Object(
  { workspaceId: PathId('workspace id'), keyId: PathId('API key id') },
  { additionalProperties: false },
);
