import type { Kysely } from 'kysely';
import { preparedQuery } from '../../db/prepared.js';
import type { DB, SessionsTable } from '../../db/schema.js';

/** The insert of a new session, and the removal of its key's expired sessions (so they do not pile up), for one write batch. */
export function sessionWrites(db: Kysely<DB>, workspaceId: string, row: Omit<SessionsTable, 'workspace_id' | 'revoked_at'>, nowIso: string) {
  return [
    db.deleteFrom('sessions').where('workspace_id', '=', workspaceId).where('api_key_id', '=', row.api_key_id).where('expires_at', '<=', nowIso),
    db.insertInto('sessions').values({ ...row, workspace_id: workspaceId, revoked_at: null }),
  ];
}

export async function revokeSession(db: Kysely<DB>, workspaceId: string, tokenId: string, at: string): Promise<boolean> {
  const result = await db
    .updateTable('sessions')
    .set({ revoked_at: at })
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', tokenId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * A live (unrevoked) session presented with the key of this lookup, with that key (active), the
 * workspace's settings and the end user (absent when deleted since), in one prepared query: this runs
 * on every session request. The key's secret and the expiry are checked by the caller.
 */
const sessionForRequest = preparedQuery('session_for_request', (db, p: { tokenId: string; lookup: string }) =>
  db
    .selectFrom('sessions')
    .innerJoin('api_keys', 'api_keys.id', 'sessions.api_key_id')
    .innerJoin('workspaces', 'workspaces.id', 'sessions.workspace_id')
    .leftJoin('internal_users', (join) =>
      join.onRef('internal_users.id', '=', 'sessions.internal_user_id').onRef('internal_users.workspace_id', '=', 'sessions.workspace_id'),
    )
    .leftJoin('clients', (join) => join.onRef('clients.id', '=', 'sessions.client_id').onRef('clients.workspace_id', '=', 'sessions.workspace_id'))
    .select([
      'sessions.id',
      'sessions.workspace_id',
      'sessions.internal_user_id',
      'sessions.client_id',
      'sessions.company_id',
      'sessions.expires_at',
      'api_keys.id as api_key_id',
      'api_keys.app_id',
      'api_keys.secret_hash',
      'workspaces.daily_quota',
      'internal_users.role',
      'internal_users.is_client_access_limited',
      'internal_users.company_access_list',
      'clients.company_ids as client_company_ids',
    ])
    .where('sessions.id', '=', p.tokenId)
    .where('sessions.revoked_at', 'is', null)
    .where('api_keys.lookup', '=', p.lookup)
    .where('api_keys.revoked_at', 'is', null),
);

export function findSessionForRequest(db: Kysely<DB>, tokenId: string, lookup: string) {
  return sessionForRequest.first(db, { tokenId, lookup });
}
