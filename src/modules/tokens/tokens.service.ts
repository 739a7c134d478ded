import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { writeBatch } from '../../db/batch.js';
import type { DB } from '../../db/schema.js';
import { type Clock, isoAt } from '../../lib/clock.js';
import { errors } from '../../lib/errors.js';
import type { Principal } from '../../plugins/auth.js';
import * as repo from './tokens.repository.js';
import type { BearerToken } from './tokens.schemas.js';

/**
 * Bearer tokens (POST /v1/token): `ppt_` + 256 random bits (base64url). Only the SHA-256 of the token
 * is stored, and the row is found by that hash (an equality lookup on a hash of 256 random bits leaks
 * nothing through timing). A token lives one hour (specification) and dies with its key.
 */
const PREFIX = 'ppt_';
const TOKEN_PATTERN = /^ppt_[A-Za-z0-9_-]{43}$/;
export const BEARER_TOKEN_LIFETIME_SECONDS = 3600;

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

/** Mints a token for the app key behind `principal`: only an app key presented as such may (403 otherwise). */
export async function mintBearerToken(db: Kysely<DB>, principal: Principal, clock: Clock): Promise<BearerToken> {
  if (principal.kind === 'workspace') throw errors.forbidden('Only app API keys mint tokens; this is a workspace key.');
  if (principal.credential !== 'apiKey') throw errors.forbidden('Tokens are minted with an app API key in X-API-KEY, not with a token or a session.');
  const now = clock.now();
  // A whole second, so that the stored expiry and the answered `tokenExpiresAt` are the same instant.
  const tokenExpiresAt = Math.floor(now / 1000) + BEARER_TOKEN_LIFETIME_SECONDS;
  const token = `${PREFIX}${randomBytes(32).toString('base64url')}`;
  await writeBatch(
    db,
    repo.bearerTokenWrites(
      db,
      principal.workspaceId,
      { id: randomUUID(), api_key_id: principal.apiKeyId, token_hash: hashToken(token), created_at: isoAt(now), expires_at: isoAt(tokenExpiresAt * 1000) },
      isoAt(now),
    ),
  );
  return { token, tokenExpiresAt };
}

/** The token's row with its active key and workspace, or undefined (malformed, unknown, expired, or key revoked). */
export async function verifyBearerToken(db: Kysely<DB>, presented: string, now: number) {
  if (!TOKEN_PATTERN.test(presented)) return undefined;
  const row = await repo.findTokenByHash(db, hashToken(presented));
  if (!row || Date.parse(row.expires_at) <= now) return undefined;
  return row;
}
