import type { Kysely } from 'kysely';
import { preparedQuery } from '../../../db/prepared.js';
import type { DB } from '../../../db/schema.js';
import type { UnitOfWork } from '../../../db/unit-of-work.js';
import type { Access } from '../../../lib/caller.js';
import type { ApiKey, ApiKeyKind } from './api-keys.schemas.js';

export interface NewApiKey {
  id: string;
  kind: ApiKeyKind;
  appId: string | null;
  lookup: string;
  /** SHA-256 of the secret part, hex. */
  secretHash: string;
  createdAt: string;
  label: string | null;
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
      label: key.label,
    }),
  );
}

/** Every key of the workspace, revoked ones too, oldest first (a workspace has a handful). */
export async function listApiKeys(db: Kysely<DB>, access: Access): Promise<ApiKey[]> {
  const rows = await db
    .selectFrom('api_keys')
    .select(['id', 'lookup', 'kind', 'app_id', 'label', 'created_at', 'revoked_at'])
    .where('workspace_id', '=', access.workspaceId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((row) => ({
    id: row.id,
    prefix: `ppk_${row.lookup.slice(0, 6)}`,
    kind: row.kind,
    appId: row.app_id,
    label: row.label,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
  }));
}

/** The oldest unrevoked workspace key with this label, if any. */
export async function findActiveWorkspaceKeyByLabel(db: Kysely<DB>, access: Access, label: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('api_keys')
    .select('id')
    .where('workspace_id', '=', access.workspaceId)
    .where('kind', '=', 'workspace')
    .where('label', '=', label)
    .where('revoked_at', 'is', null)
    .orderBy('created_at')
    .executeTakeFirst();
  return row?.id;
}

/** Credentials that can be revoked: keys, and the sessions minted for them. */
type Revocable = 'api_keys' | 'sessions';

/** Whether the workspace has this key (or session), unrevoked. */
export async function isUnrevoked(db: Kysely<DB>, access: Access, table: Revocable, id: string): Promise<boolean> {
  const row = await db
    .selectFrom(table)
    .select('id')
    .where('workspace_id', '=', access.workspaceId)
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return row !== undefined;
}

export function revoke(work: UnitOfWork, access: Access, table: Revocable, id: string, at: string): void {
  work.write(
    work.db
      .updateTable(table)
      .set({ revoked_at: at })
      .where('workspace_id', '=', access.workspaceId)
      .where('id', '=', id)
      .where('revoked_at', 'is', null),
  );
}

/** Removes a key's expired bearer tokens or sessions when it gets a new one, so they do not pile up. */
export function deleteExpired(work: UnitOfWork, access: Access, table: 'bearer_tokens' | 'sessions', apiKeyId: string, now: string): void {
  work.write(
    work.db
      .deleteFrom(table)
      .where('workspace_id', '=', access.workspaceId)
      .where('api_key_id', '=', apiKeyId)
      .where('expires_at', '<=', now),
  );
}

/** An unrevoked key of the workspace by its id: its kind and app, or undefined. */
export async function findActiveApiKey(db: Kysely<DB>, access: Access, id: string) {
  return db
    .selectFrom('api_keys')
    .select(['id', 'kind', 'app_id'])
    .where('workspace_id', '=', access.workspaceId)
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
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
      'workspaces.clock_offset_ms',
    ])
    .where('api_keys.lookup', '=', p.lookup)
    .where('api_keys.revoked_at', 'is', null),
);

/** Before authentication there is no access scope: the lookup is the credential. */
export function findActiveKeyByLookup(db: Kysely<DB>, lookup: string) {
  return activeKeyByLookup.first(db, { lookup });
}

/** What bearer tokens and sessions share: an id, the key they were minted for, and their lifetime. */
export interface KeyCredential {
  id: string;
  apiKeyId: string;
  createdAt: string;
  expiresAt: string;
}

/** The columns a new bearer token or session shares with the other kind. */
export function credentialColumns(access: Access, credential: KeyCredential) {
  const { id, apiKeyId, createdAt, expiresAt } = credential;
  return { id, workspace_id: access.workspaceId, api_key_id: apiKeyId, created_at: createdAt, expires_at: expiresAt };
}
