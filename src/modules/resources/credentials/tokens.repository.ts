import type { Kysely } from 'kysely';
import { preparedQuery } from '../../../db/prepared.js';
import type { DB } from '../../../db/schema.js';
import type { UnitOfWork } from '../../../db/unit-of-work.js';
import type { Access } from '../../../lib/caller.js';
import { type KeyCredential, credentialColumns, deleteExpired } from './api-keys.repository.js';

export interface NewBearerToken extends KeyCredential {
  /** SHA-256 of the token, hex: the token itself is never stored. */
  tokenHash: string;
}

/** A new bearer token (its key's expired tokens removed). */
export function insertBearerToken(work: UnitOfWork, access: Access, token: NewBearerToken): void {
  deleteExpired(work, access, 'bearer_tokens', token.apiKeyId, token.createdAt);
  const values = { ...credentialColumns(access, token), token_hash: token.tokenHash };
  work.write(work.db.insertInto('bearer_tokens').values(values));
}

/**
 * A token by its hash with its key (still active) and its workspace's settings, in one prepared query:
 * this runs on every bearer request. Expiry is checked by the caller against the app's clock.
 */
const tokenByHash = preparedQuery('bearer_token_by_hash', (db, p: { tokenHash: string }) =>
  db
    .selectFrom('bearer_tokens')
    .innerJoin('api_keys', 'api_keys.id', 'bearer_tokens.api_key_id')
    .innerJoin('workspaces', 'workspaces.id', 'api_keys.workspace_id')
    .select([
      'bearer_tokens.id',
      'bearer_tokens.expires_at',
      'api_keys.id as api_key_id',
      'api_keys.workspace_id',
      'api_keys.kind',
      'api_keys.app_id',
      'workspaces.daily_quota',
      'workspaces.clock_offset_ms',
    ])
    .where('bearer_tokens.token_hash', '=', p.tokenHash)
    .where('api_keys.revoked_at', 'is', null),
);

/** Before authentication there is no access scope: the hash is the credential. */
export function findTokenByHash(db: Kysely<DB>, tokenHash: string) {
  return tokenByHash.first(db, { tokenHash });
}
