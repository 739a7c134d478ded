import type { Kysely } from 'kysely';
import { preparedQuery } from '../../db/prepared.js';
import type { BearerTokensTable, DB } from '../../db/schema.js';

/** The insert of a new token, and the removal of its key's expired tokens (so they do not pile up), for one write batch. */
export function bearerTokenWrites(db: Kysely<DB>, workspaceId: string, row: Omit<BearerTokensTable, 'workspace_id'>, nowIso: string) {
  return [
    db.deleteFrom('bearer_tokens').where('workspace_id', '=', workspaceId).where('api_key_id', '=', row.api_key_id).where('expires_at', '<=', nowIso),
    db.insertInto('bearer_tokens').values({ ...row, workspace_id: workspaceId }),
  ];
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
    ])
    .where('bearer_tokens.token_hash', '=', p.tokenHash)
    .where('api_keys.revoked_at', 'is', null),
);

export function findTokenByHash(db: Kysely<DB>, tokenHash: string) {
  return tokenByHash.first(db, { tokenHash });
}
