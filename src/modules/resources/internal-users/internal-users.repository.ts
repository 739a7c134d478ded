import type { Kysely } from 'kysely';
import { type Page, type PageTokens, fetchPage, pageScope } from '../../../db/paging.js';
import { preparedQuery } from '../../../db/prepared.js';
import { objectFields, personFields } from '../../../db/rows.js';
import type { DB, InternalUsersTable } from '../../../db/schema.js';
import type { UnitOfWork } from '../../../db/unit-of-work.js';
import type { Access } from '../../../lib/caller.js';
import { fallbackColorFor } from '../../../lib/fallback-color.js';
import type { InternalUser, InternalUserListQuery } from './internal-users.schemas.js';

/** A row as the API serves it: booleans and the id list decoded, the colour derived from the id. */
function toInternalUser(row: InternalUsersTable): InternalUser {
  return {
    ...objectFields(row, 'internalUser'),
    ...personFields(row),
    role: row.role,
    isClientAccessLimited: row.is_client_access_limited === 1,
    companyAccessList: row.company_access_list ? row.company_access_list.split(',') : [],
    fallbackColor: fallbackColorFor(row.id),
  };
}

export function insertInternalUser(work: UnitOfWork, access: Access, user: InternalUser): void {
  work.write(
    work.db.insertInto('internal_users').values({
      id: user.id,
      workspace_id: access.workspaceId,
      email: user.email,
      email_key: user.email.toLowerCase(),
      given_name: user.givenName,
      family_name: user.familyName,
      role: user.role,
      is_client_access_limited: user.isClientAccessLimited ? 1 : 0,
      company_access_list: user.companyAccessList.join(','),
      avatar_image_url: user.avatarImageUrl ?? null,
      email_notifications: 1,
      created_at: user.createdAt,
      updated_at: user.updatedAt,
    }),
    // The unique index decides, so two concurrent creates cannot both pass.
    { internal_users_email_unique: user.email },
  );
}

/** The internal user of this workspace, or undefined (another workspace's id is simply not found). */
const internalUserById = preparedQuery('internal_user_by_id', (db, p: { workspaceId: string; id: string }) =>
  db.selectFrom('internal_users').selectAll().where('workspace_id', '=', p.workspaceId).where('id', '=', p.id),
);

export async function findInternalUser(db: Kysely<DB>, access: Access, id: string): Promise<InternalUser | undefined> {
  const row = await internalUserById.first(db, { workspaceId: access.workspaceId, id });
  return row && toInternalUser(row);
}

/** The internal user of this e-mail (trimmed, case-insensitively), or undefined: sign-in (modules/surfaces/sign-in) finds people so. */
export async function findInternalUserByEmail(db: Kysely<DB>, access: Access, email: string): Promise<InternalUser | undefined> {
  const row = await db
    .selectFrom('internal_users')
    .selectAll()
    .where('workspace_id', '=', access.workspaceId)
    .where('email_key', '=', email.trim().toLowerCase())
    .executeTakeFirst();
  return row && toInternalUser(row);
}

export function listInternalUsers(
  db: Kysely<DB>,
  access: Access,
  query: InternalUserListQuery,
  tokens: PageTokens,
): Promise<Page<InternalUser>> {
  const q = db.selectFrom('internal_users').selectAll().where('workspace_id', '=', access.workspaceId);
  return fetchPage(
    q,
    'internal_users',
    { limit: query.limit, nextToken: query.nextToken },
    tokens,
    pageScope(access, 'internalUsers'),
    toInternalUser,
  );
}

/** A user's role and company limits, as changed on the admin surface (its workspace's row only). */
export function updateInternalUserAccess(work: UnitOfWork, access: Access, user: InternalUser): void {
  work.write(
    work.db
      .updateTable('internal_users')
      .set({
        role: user.role,
        is_client_access_limited: user.isClientAccessLimited ? 1 : 0,
        company_access_list: user.companyAccessList.join(','),
        updated_at: user.updatedAt,
      })
      .where('workspace_id', '=', access.workspaceId)
      .where('id', '=', user.id),
  );
}

/** Removes the user (its notification preferences and notifications go with it, by the foreign keys). */
export function deleteInternalUser(work: UnitOfWork, access: Access, id: string): void {
  work.write(work.db.deleteFrom('internal_users').where('workspace_id', '=', access.workspaceId).where('id', '=', id));
}

/** The internal user, its row locked until the unit's transaction ends on PostgreSQL (a read-modify-write). */
export async function findInternalUserForUpdate(
  db: Kysely<DB>,
  access: Access,
  id: string,
  dialect: 'sqlite' | 'postgres',
): Promise<InternalUser | undefined> {
  const user = db.selectFrom('internal_users').selectAll().where('workspace_id', '=', access.workspaceId).where('id', '=', id);
  const row = await (dialect === 'postgres' ? user.forUpdate() : user).executeTakeFirst();
  return row && toInternalUser(row);
}

/**
 * The internal user, with whether notifications are e-mailed to it; with `lockFor` (inside a transaction), its row
 * locked until it ends on PostgreSQL (a read-modify-write).
 */
export async function findInternalUserProfile(
  db: Kysely<DB>,
  access: Access,
  id: string,
  lockFor?: 'sqlite' | 'postgres',
): Promise<{ user: InternalUser; emailNotifications: boolean } | undefined> {
  const user = db.selectFrom('internal_users').selectAll().where('workspace_id', '=', access.workspaceId).where('id', '=', id);
  const row = await (lockFor === 'postgres' ? user.forUpdate() : user).executeTakeFirst();
  return row && { user: toInternalUser(row), emailNotifications: row.email_notifications === 1 };
}

/** A user's own profile as it changed it (the portal's account page): its names, its picture, whether notifications are e-mailed to it. */
export function updateInternalUserProfile(work: UnitOfWork, access: Access, user: InternalUser, emailNotifications: boolean): void {
  work.write(
    work.db
      .updateTable('internal_users')
      .set({
        given_name: user.givenName,
        family_name: user.familyName,
        avatar_image_url: user.avatarImageUrl ?? null,
        email_notifications: emailNotifications ? 1 : 0,
        updated_at: user.updatedAt,
      })
      .where('workspace_id', '=', access.workspaceId)
      .where('id', '=', user.id),
  );
}

/**
 * The workspace's admins' ids. On PostgreSQL their rows stay locked until the unit's transaction ends, so two
 * changes at once (two admins made staff, or removed) cannot each count the other and leave the workspace none.
 */
export async function lockAdmins(db: Kysely<DB>, access: Access, dialect: 'sqlite' | 'postgres'): Promise<string[]> {
  const admins = db.selectFrom('internal_users').select('id').where('workspace_id', '=', access.workspaceId).where('role', '=', 'admin');
  const rows = await (dialect === 'postgres' ? admins.forUpdate() : admins).execute();
  return rows.map((row) => row.id);
}
