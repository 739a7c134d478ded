import type { Kysely } from 'kysely';
import { preparedQuery } from '../../db/prepared.js';
import type { DB } from '../../db/schema.js';
import type { UnitOfWork } from '../../db/unit-of-work.js';
import type { Access } from '../../lib/caller.js';
import type { ApiKeyKind } from './api-keys.schemas.js';

export interface NewApiKey {
  id: string;
  kind: ApiKeyKind;
  appId: string | null;
  lookup: string;
  /** SHA-256 of the secret part, hex. */
  secretHash: string;
  createdAt: string;
}

export function insertApiKey(work: UnitOfWork, access: Access, key: NewApiKey): void {
  work.write(
    work.db.insertInto('api_keys').values({
      id: key.id,
      workspace_id: access.workspaceId,
      kind: key.kind,
      app_id: key.appId,
      lookup: key.lookup,
      secret_hash: key.secretHash,
      created_at: key.createdAt,
      revoked_at: null,
    }),
  );
}

/** Whether the workspace has this key, unrevoked. */
export async function isActiveKey(db: Kysely<DB>, access: Access, apiKeyId: string): Promise<boolean> {
  const row = await db
    .selectFrom('api_keys')
    .select('id')
    .where('workspace_id', '=', access.workspaceId)
    .where('id', '=', apiKeyId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return row !== undefined;
}

export function revokeApiKey(work: UnitOfWork, access: Access, apiKeyId: string, at: string): void {
  work.write(work.db.updateTable('api_keys').set({ revoked_at: at }).where('workspace_id', '=', access.workspaceId).where('id', '=', apiKeyId).where('revoked_at', 'is', null));
}

/** The key and its workspace's settings in one prepared query: this runs on every authenticated request. */
const activeKeyByLookup = preparedQuery('api_key_by_lookup', (db, p: { lookup: string }) =>
  db
    .selectFrom('api_keys')
    .innerJoin('workspaces', 'workspaces.id', 'api_keys.workspace_id')
    .select(['api_keys.id', 'api_keys.workspace_id', 'api_keys.kind', 'api_keys.app_id', 'api_keys.secret_hash', 'workspaces.daily_quota'])
    .where('api_keys.lookup', '=', p.lookup)
    .where('api_keys.revoked_at', 'is', null),
);

/** Before authentication there is no access scope: the lookup is the credential. */
export function findActiveKeyByLookup(db: Kysely<DB>, lookup: string) {
  return activeKeyByLookup.first(db, { lookup });
}
