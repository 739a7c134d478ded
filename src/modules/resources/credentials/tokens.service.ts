import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Database, DbHandle } from '../../../db/database.js';
import { type UnitOfWork, unitOfWork } from '../../../db/unit-of-work.js';
import type { Caller } from '../../../lib/caller.js';
import { isoAt } from '../../../lib/clock.js';
import { errors } from '../../../lib/errors.js';
import { findActiveWorkspaceKeyByLabel } from './api-keys.repository.js';
import { addApiKey } from './api-keys.service.js';
import * as repo from './tokens.repository.js';
import type { BearerToken } from './tokens.schemas.js';

/**
 * Bearer tokens (POST /v1/token): `ppt_` + 256 random bits (base64url). Only the SHA-256 of the token
 * is stored, and the row is found by that hash (an equality lookup on a hash of 256 random bits leaks
 * nothing through timing). A token lives one hour (specification) and dies with its key.
 */
const PREFIX = 'ppt_';
const TOKEN_PATTERN = /^ppt_[A-Za-z0-9_-]{43}$/;
const BEARER_TOKEN_LIFETIME_SECONDS = 3600;

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

/** Mints a token for the caller's app key: only an app key presented as such may (403 otherwise). */
export async function mintBearerToken(database: Database, caller: Caller): Promise<BearerToken> {
  const { principal } = caller;
  if (principal.kind === 'workspaceKey') throw errors.forbidden('Only app API keys mint tokens; this is a workspace key.');
  if (principal.kind !== 'appKey')
    throw errors.forbidden('Tokens are minted with an app API key in X-API-KEY, not with a token or a session.');
  return unitOfWork(database, async (work) => {
    const { token, tokenExpiresAt } = addBearerToken(work, caller, principal.apiKeyId);
    return { token, tokenExpiresAt };
  });
}

/**
 * A new token of a key, in a unit of work (one hour unless `lifetimeSeconds` says less: the QA surface's agent
 * tokens); the token is answered only now, with the id of its row.
 */
export function addBearerToken(
  work: UnitOfWork,
  caller: Caller,
  apiKeyId: string,
  lifetimeSeconds = BEARER_TOKEN_LIFETIME_SECONDS,
): BearerToken & { bearerTokenId: string } {
  const now = caller.actor.at;
  // A whole second, so that the stored expiry and the answered `tokenExpiresAt` are the same instant.
  const tokenExpiresAt = Math.floor(now / 1000) + lifetimeSeconds;
  const token = `${PREFIX}${randomBytes(32).toString('base64url')}`;
  const bearerTokenId = randomUUID();
  repo.insertBearerToken(work, caller.access, {
    id: bearerTokenId,
    apiKeyId,
    tokenHash: hashToken(token),
    createdAt: isoAt(now),
    expiresAt: isoAt(tokenExpiresAt * 1000),
  });
  return { token, tokenExpiresAt, bearerTokenId };
}

/** The label of the workspace key that the operator's tokens (the admin console's) are minted for. */
const OPERATOR_KEY_LABEL = 'console';

/**
 * A token with the workspace's full rights for the operator (the admin console calls the public API
 * with it). It is minted for the workspace's key labelled "console", made on first use, whose secret is
 * never shown: revoking that key ends every such token. Its requests count like any workspace key's.
 */
export async function mintOperatorToken(database: Database, caller: Caller): Promise<BearerToken> {
  return unitOfWork(
    database,
    async (work) => {
      const apiKeyId =
        (await findActiveWorkspaceKeyByLabel(work.db, caller.access, OPERATOR_KEY_LABEL)) ??
        addApiKey(work, caller, { kind: 'workspace', label: OPERATOR_KEY_LABEL }).apiKeyId;
      const { token, tokenExpiresAt } = addBearerToken(work, caller, apiKeyId);
      return { token, tokenExpiresAt };
    },
    { transaction: true },
  );
}

/**
 * The token's row with its active key and workspace, or undefined (malformed, unknown, expired, or key revoked).
 * Expiry is at the workspace's time: `now` (the server's) plus its test clock's offset.
 */
export async function verifyBearerToken(db: DbHandle, presented: string, now: number) {
  if (!TOKEN_PATTERN.test(presented)) return undefined;
  const row = await repo.findTokenByHash(db, hashToken(presented));
  if (!row || Date.parse(row.expires_at) <= now + Number(row.clock_offset_ms)) return undefined;
  return row;
}
