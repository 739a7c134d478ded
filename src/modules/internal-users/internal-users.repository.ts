import type { Kysely } from 'kysely';
import { type PageRequest, type PageTokens, fetchPage, pageScope } from '../../db/paging.js';
import type { DB, InternalUsersTable } from '../../db/schema.js';
import { fallbackColorFor } from '../../lib/fallback-color.js';
import type { InternalUser } from './internal-users.schemas.js';

export async function insertInternalUser(db: Kysely<DB>, workspaceId: string, row: Omit<InternalUsersTable, 'workspace_id'>) {
  await db.insertInto('internal_users').values({ ...row, workspace_id: workspaceId }).execute();
}

/** The internal user of this workspace, or undefined (another workspace's id is simply not found). */
export function findInternalUser(db: Kysely<DB>, workspaceId: string, id: string) {
  return db.selectFrom('internal_users').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
}

export function listInternalUsers(db: Kysely<DB>, workspaceId: string, page: PageRequest, tokens: PageTokens) {
  const query = db.selectFrom('internal_users').selectAll().where('workspace_id', '=', workspaceId);
  return fetchPage(query, 'internal_users', page, tokens, pageScope(workspaceId, 'internalUsers'));
}

/** A row as the API serves it: booleans and the id list decoded, the colour derived from the id. */
export function toInternalUser(row: InternalUsersTable): InternalUser {
  return {
    id: row.id,
    object: 'internalUser',
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    email: row.email,
    givenName: row.given_name,
    familyName: row.family_name,
    role: row.role,
    isClientAccessLimited: row.is_client_access_limited === 1,
    companyAccessList: row.company_access_list ? row.company_access_list.split(',') : [],
    fallbackColor: fallbackColorFor(row.id),
    ...(row.avatar_image_url ? { avatarImageUrl: row.avatar_image_url } : {}),
  };
}
