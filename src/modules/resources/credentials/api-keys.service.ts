import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { Database, DbHandle } from '../../../db/database.js';
import { type UnitOfWork, unitOfWork } from '../../../db/unit-of-work.js';
import type { Caller } from '../../../lib/caller.js';
import { isoAt } from '../../../lib/clock.js';
import { credentialsChanged } from '../../../lib/credential-cache.js';
import { errors } from '../../../lib/errors.js';
import { recordAudit } from '../../../audit/index.js';
import * as repo from './api-keys.repository.js';
import type { ApiKeyKind } from './api-keys.schemas.js';

/**
 * Key format: `ppk_` + 16-char lookup + 43-char secret (both base64url, 96 and 256 random bits).
 * The lookup finds the row; only the SHA-256 of the secret is stored, compared in constant time.
 * A plain hash suffices (no bcrypt/scrypt): the secret is 256 random bits, not a password.
 */
const PREFIX = 'ppk_';
const LOOKUP_LENGTH = 16;
const SECRET_LENGTH = 43;
const KEY_PATTERN = /^ppk_[A-Za-z0-9_-]{59}$/;

export interface CreatedApiKey {
  apiKeyId: string;
  apiKey: string;
  kind: ApiKeyKind;
  appId?: string;
}

interface NewKeyInput {
  kind: ApiKeyKind;
  appId?: string;
  label?: string;
}

const hashSecret = (secret: string) => createHash('sha256').update(secret).digest();

/** Adds a new key of the caller's workspace, and its `apiKeyCreated` entry, to a unit of work; the key is shown only now. */
export function addApiKey(work: UnitOfWork, caller: Caller, input: NewKeyInput): CreatedApiKey {
  const lookup = randomBytes(12).toString('base64url');
  const secret = randomBytes(32).toString('base64url');
  const apiKeyId = randomUUID();
  repo.insertApiKey(work, caller.access, {
    id: apiKeyId,
    kind: input.kind,
    appId: input.appId ?? null,
    lookup,
    secretHash: hashSecret(secret).toString('hex'),
    createdAt: isoAt(caller.actor.at),
    label: input.label?.trim() ?? null,
  });
  recordAudit(work, caller.actor, {
    eventType: 'apiKeyCreated',
    description: `${input.kind === 'app' ? 'App' : 'Workspace'} API key created`,
    context: { apiKeyId, kind: input.kind, ...(input.appId ? { appId: input.appId } : {}) },
    // The key's description only: its secret is never recorded.
    subject: { object: 'apiKey', id: apiKeyId, data: { id: apiKeyId, object: 'apiKey', kind: input.kind, appId: input.appId ?? null } },
  });
  return { apiKeyId, apiKey: `${PREFIX}${lookup}${secret}`, kind: input.kind, ...(input.appId ? { appId: input.appId } : {}) };
}

/** Every key of the workspace, revoked ones too, oldest first; never a secret (the admin list, `portal keys list`). */
export function listApiKeys(database: Database, caller: Caller) {
  return repo.listApiKeys(database.db, caller.access);
}

export function createApiKey(database: Database, caller: Caller, input: NewKeyInput): Promise<CreatedApiKey> {
  return unitOfWork(database, async (work) => addApiKey(work, caller, input));
}

export async function revokeApiKey(database: Database, caller: Caller, apiKeyId: string): Promise<void> {
  await unitOfWork(
    database,
    async (work) => {
      if (!(await repo.isUnrevoked(work.db, caller.access, 'api_keys', apiKeyId))) throw errors.notFound('API key');
      repo.revoke(work, caller.access, 'api_keys', apiKeyId, isoAt(caller.actor.at));
      work.onCommit(() => credentialsChanged(database));
      recordAudit(work, caller.actor, {
        eventType: 'apiKeyDeleted',
        description: 'API key revoked',
        context: { apiKeyId },
        subject: { object: 'apiKey', id: apiKeyId, data: { id: apiKeyId, object: 'apiKey', revoked: true } },
      });
    },
    { transaction: true },
  );
}

/** The lookup and secret parts of a presented key string, or undefined when it is not a key. */
export function parseApiKey(presented: string): { lookup: string; secret: string } | undefined {
  if (!KEY_PATTERN.test(presented)) return undefined;
  const lookup = presented.slice(PREFIX.length, PREFIX.length + LOOKUP_LENGTH);
  const secret = presented.slice(PREFIX.length + LOOKUP_LENGTH);
  return secret.length === SECRET_LENGTH ? { lookup, secret } : undefined;
}

/** Whether a key's secret part matches a stored `secret_hash`, in constant time. */
export function secretMatches(secret: string, secretHash: string): boolean {
  return timingSafeEqual(hashSecret(secret), Buffer.from(secretHash, 'hex'));
}

/** The active key row for a presented key string, or undefined (unknown, malformed or revoked). */
export async function verifyApiKey(db: DbHandle, presented: string) {
  const parts = parseApiKey(presented);
  if (!parts) return undefined;
  const row = await repo.findActiveKeyByLookup(db, parts.lookup);
  if (!row) return undefined;
  return secretMatches(parts.secret, row.secret_hash) ? row : undefined;
}
