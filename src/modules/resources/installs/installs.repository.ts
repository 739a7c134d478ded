import type { Kysely } from 'kysely';
import { type Page, type PageTokens, fetchPage, pageScope } from '../../../db/paging.js';
import { parseObject } from '../../../db/rows.js';
import type { DB, InstallsTable } from '../../../db/schema.js';
import type { UnitOfWork } from '../../../db/unit-of-work.js';
import type { Access } from '../../../lib/caller.js';
import type { Install, InstallListQuery } from './installs.schemas.js';

/** Installs' storage: booleans are 0/1, structured fields JSON text; internal-only columns never leave here. */

function toInstall(row: InstallsTable): Install {
  return {
    id: row.id,
    object: 'install',
    type: row.type,
    status: row.status,
    displayName: row.display_name,
    icon: row.icon,
    appId: row.app_id ?? '',
    appBuilderId: row.app_builder_id ?? undefined,
    isDraft: row.status === 'draft',
    autoSizeEmbed: row.auto_size_embed === 1,
    content: row.content ?? undefined,
    embedCode: row.embed_code ?? undefined,
    embedLink: row.embed_link ?? undefined,
    embedCount: row.embed_count,
    embedlyData: row.embedly_data ? parseObject(row.embedly_data) : undefined,
    isAuthenticated: row.is_authenticated === 1,
    isInternalApp: row.is_internal_app === 1,
    isRoot: row.is_root === 1,
    iuSidebarHidden: row.iu_sidebar_hidden === 1,
    path: row.path,
    queryParams: JSON.parse(row.query_params),
    sort: row.sort,
    supportsExpiringTokens: row.supports_expiring_tokens === 1,
    visibilityConfig: JSON.parse(row.visibility_config),
  };
}

/** Installs this access may see: a client session only published ones. */
function visible(db: Kysely<DB>, access: Access) {
  let q = db.selectFrom('installs').selectAll().where('installs.workspace_id', '=', access.workspaceId);
  if (access.clientId) q = q.where('installs.status', '=', 'published');
  return q;
}

export function listInstalls(db: Kysely<DB>, access: Access, query: InstallListQuery, tokens: PageTokens): Promise<Page<Install>> {
  const keyset = { sortKey: 'installs.sort_key', id: 'installs.id' };
  return fetchPage(visible(db, access), keyset, query, tokens, pageScope(access, 'installs'), toInstall);
}

export async function findInstall(db: Kysely<DB>, access: Access, id: string): Promise<Install | undefined> {
  const row = await visible(db, access).where('installs.id', '=', id).executeTakeFirst();
  return row && toInstall(row);
}

/** The URLs of the workspace's published app installs (custom and marketplace) that have one. */
export async function publishedAppUrls(db: Kysely<DB>, access: Access): Promise<string[]> {
  const rows = await db
    .selectFrom('installs')
    .select('embed_link')
    .where('workspace_id', '=', access.workspaceId)
    .where('status', '=', 'published')
    .where('type', 'in', ['custom', 'marketplace'])
    .where('embed_link', 'is not', null)
    .execute();
  return rows.flatMap((row) => (row.embed_link === null ? [] : [row.embed_link]));
}

/** The next sidebar position of the workspace (after its last install). */
export async function nextSort(db: Kysely<DB>, access: Access): Promise<number> {
  const row = await db
    .selectFrom('installs')
    .select((eb) => eb.fn.max('sort').as('last'))
    .where('workspace_id', '=', access.workspaceId)
    .executeTakeFirst();
  return row?.last === null || row?.last === undefined ? 0 : Number(row.last) + 1;
}

export type NewInstall = Pick<
  InstallsTable,
  'id' | 'type' | 'status' | 'display_name' | 'icon' | 'app_id' | 'path' | 'sort' | 'sort_key' | 'created_at' | 'updated_at'
> &
  Partial<Pick<InstallsTable, 'app_builder_id' | 'content' | 'embed_link'>>;

export function insertInstalls(work: UnitOfWork, access: Access, installs: NewInstall[]): void {
  const rows: InstallsTable[] = installs.map((install) => ({
    app_builder_id: null,
    content: null,
    embed_code: null,
    embed_link: null,
    embed_count: 0,
    embedly_data: null,
    auto_size_embed: 1,
    is_authenticated: 0,
    is_internal_app: 0,
    is_root: 0,
    iu_sidebar_hidden: 0,
    query_params: '[]',
    supports_expiring_tokens: 0,
    visibility_config: '[]',
    disabled: 0,
    notification_config: null,
    ...install,
    workspace_id: access.workspaceId,
  }));
  work.write(work.db.insertInto('installs').values(rows));
}

export function publishInstall(work: UnitOfWork, access: Access, id: string, at: string): void {
  work.write(
    work.db
      .updateTable('installs')
      .set({ status: 'published', updated_at: at })
      .where('workspace_id', '=', access.workspaceId)
      .where('id', '=', id),
  );
}

/** An install's notification configuration as stored (JSON text), or null when none is declared; undefined: no such install. */
export async function findNotificationConfig(db: Kysely<DB>, access: Access, id: string): Promise<{ config: string | null } | undefined> {
  const row = await visible(db, access)
    .clearSelect()
    .select('installs.notification_config')
    .where('installs.id', '=', id)
    .executeTakeFirst();
  return row && { config: row.notification_config };
}

/**
 * Replaces the configuration only if it is still `previous` (compare and swap: two concurrent changes
 * cannot lose one another); whether it did.
 */
export async function swapNotificationConfig(
  db: Kysely<DB>,
  access: Access,
  id: string,
  previous: string | null,
  next: string,
  at: string,
): Promise<boolean> {
  const result = await db
    .updateTable('installs')
    .set({ notification_config: next, updated_at: at })
    .where('workspace_id', '=', access.workspaceId)
    .where('id', '=', id)
    .where('notification_config', previous === null ? 'is' : '=', previous)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Every declared notification configuration of the workspace, installs in sidebar order (JSON text each). */
export function declaredNotificationConfigs(db: Kysely<DB>, access: Access) {
  return db
    .selectFrom('installs')
    .select(['id', 'notification_config'])
    .where('workspace_id', '=', access.workspaceId)
    .where('notification_config', 'is not', null)
    .orderBy('sort_key')
    .orderBy('id')
    .execute();
}

/** Installs with declared notification settings, of one app or one install (id, app and configuration JSON). */
export function declaredConfigsOf(db: Kysely<DB>, access: Access, of: { installId: string } | { appId: string }) {
  let q = db
    .selectFrom('installs')
    .select(['id', 'app_id', 'notification_config'])
    .where('workspace_id', '=', access.workspaceId)
    .where('notification_config', 'is not', null);
  q = 'installId' in of ? q.where('id', '=', of.installId) : q.where('app_id', '=', of.appId);
  return q.orderBy('sort_key').orderBy('id').execute();
}
