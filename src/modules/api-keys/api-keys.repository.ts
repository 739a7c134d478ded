import type { Kysely } from 'kysely';
import { preparedQuery } from '../../db/prepared.js';
import type { ApiKeysTable, DB } from '../../db/schema.js';

export async function insertApiKey(db: Kysely<DB>, workspaceId: string, row: Omit<ApiKeysTable, 'workspace_id' | 'revoked_at'>) {
  await db.insertInto('api_keys').values({ ...row, workspace_id: workspaceId, revoked_at: null }).execute();
}

export async function revokeApiKey(db: Kysely<DB>, workspaceId: string, apiKeyId: string, at: string): Promise<boolean> {
  const result = await db
    .updateTable('api_keys')
    .set({ revoked_at: at })
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', apiKeyId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** The key and its workspace's settings in one prepared query: this runs on every authenticated request. */
const activeKeyByLookup = preparedQuery('api_key_by_lookup', (db, p: { lookup: string }) =>
  db
    .selectFrom('api_keys')
    .innerJoin('workspaces', 'workspaces.id', 'api_keys.workspace_id')
    .select([
      'api_keys.id',
      'api_keys.workspace_id',
      'api_keys.kind',
      'api_keys.app_id',
      'api_keys.secret_hash',
      'workspaces.daily_quota',
    ])
    .where('api_keys.lookup', '=', p.lookup)
    .where('api_keys.revoked_at', 'is', null),
);

export function findActiveKeyByLookup(db: Kysely<DB>, lookup: string) {
  return activeKeyByLookup.first(db, { lookup });
}
