import { type Static, Type } from 'typebox';
import { Id } from '../../lib/schemas.js';

const API_KEY_KINDS = ['workspace', 'app'] as const;
export type ApiKeyKind = (typeof API_KEY_KINDS)[number];

/** A workspace key without `appId`; an app key with it. */
export const ApiKeyCreate = Type.Object({ appId: Type.Optional(Id) }, { additionalProperties: false, title: 'ApiKeyCreate' });
export type ApiKeyCreate = Static<typeof ApiKeyCreate>;
