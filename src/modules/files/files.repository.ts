import type { ExpressionBuilder, Kysely } from 'kysely';
import { type Page, type PageRequest, type PageTokens, fetchPage, pageScope } from '../../db/paging.js';
import { joinIds, nonEmpty, objectFields, splitIds } from '../../db/rows.js';
import type { ClientPermissions, DB, FileChannelsTable, FilesTable } from '../../db/schema.js';
import type { UnitOfWork } from '../../db/unit-of-work.js';
import type { Access } from '../../lib/caller.js';
import type { FileChannel, FileObject } from './files.schemas.js';

/** A channel as the API serves it: what a channel of its type does not have is left out, never null. */
export function toChannel(row: FileChannelsTable): FileChannel {
  const memberIds = splitIds(row.member_ids);
  const entityId = row.membership_type === 'individual' ? row.client_id : row.membership_type === 'company' ? row.company_id : null;
  return {
    ...objectFields(row, 'fileChannel'),
    membershipType: row.membership_type,
    ...(row.client_id !== null ? { clientId: row.client_id } : {}),
    companyId: row.company_id,
    ...(entityId !== null ? { membershipEntityId: entityId } : {}),
    ...(memberIds.length > 0 ? { memberIds } : {}),
  };
}

/** Permissions as the SDK's retrieveFile declares them (`read-write`), from how its create body spells them (`read_write`). */
export const permissionsOut = (value: ClientPermissions) => (value === 'read_write' ? 'read-write' : 'read-only');

/** A file object as the API serves it (signed URLs are the service's to add): fields without a value left out. */
export function toFile(row: FilesTable): FileObject {
  return {
    ...objectFields(row, row.object),
    channelId: row.channel_id,
    ...(row.creator_id !== null ? { creatorId: row.creator_id } : {}),
    ...(row.modified_by_id !== null && row.modified_by_object !== null
      ? { lastModifiedBy: { id: row.modified_by_id, object: row.modified_by_object } }
      : {}),
    name: row.name,
    path: row.path,
    ...(row.link_url !== null ? { linkUrl: row.link_url } : {}),
    ...(row.object === 'file' ? { status: row.status } : {}),
    ...(row.size !== null ? { size: Number(row.size) } : {}),
    ...(row.content_type !== null ? { contentType: row.content_type } : {}),
    ...(row.client_permissions !== null ? { clientPermissions: permissionsOut(row.client_permissions) } : {}),
  };
}

/** Channels a client belongs to: it is a member (individual, group), or the channel is one of its companies' (company). */
const clientBelongs =
  (workspaceId: string, clientId: string) =>
  ({ or, and, eb, exists, selectFrom }: ExpressionBuilder<DB, 'file_channels'>) =>
    or([
      exists(
        selectFrom('file_channel_members as m')
          .select('m.client_id')
          .whereRef('m.channel_id', '=', 'file_channels.id')
          .where('m.client_id', '=', clientId),
      ),
      and([
        eb('file_channels.membership_type', '=', 'company'),
        eb(
          'file_channels.company_id',
          'in',
          selectFrom('client_companies as cc')
            .select('cc.company_id')
            .where('cc.workspace_id', '=', workspaceId)
            .where('cc.client_id', '=', clientId),
        ),
      ]),
    ]);

/** Channels this access sees: its workspace's; a principal limited to some companies only theirs; a client session only its own. */
function visibleChannels(db: Kysely<DB>, access: Access) {
  let q = db.selectFrom('file_channels').selectAll('file_channels').where('file_channels.workspace_id', '=', access.workspaceId);
  if (access.companyIds) q = q.where('file_channels.company_id', 'in', nonEmpty(access.companyIds));
  if (access.clientId) q = q.where(clientBelongs(access.workspaceId, access.clientId));
  return q;
}

/** The `memberId` filter, resolved by the service: a client, the companies an internal user sees (null: all), or nobody known. */
export type MemberFilter =
  | { kind: 'client'; id: string }
  | { kind: 'internalUser'; companyIds: readonly string[] | null }
  | { kind: 'unknown' };

export interface ChannelFilters {
  membershipType?: FileChannel['membershipType'];
  clientId?: string;
  companyId?: string;
  member?: MemberFilter;
  /** The memberId as given: part of the page token's scope. */
  memberId?: string;
}

/** A page of the channels this access sees, newest first (filters as message channels'; `companyId` a condition). */
export async function listChannels(
  db: Kysely<DB>,
  access: Access,
  filters: ChannelFilters,
  page: PageRequest,
  tokens: PageTokens,
): Promise<Page<FileChannel>> {
  const { membershipType, clientId, companyId, member } = filters;
  let q = visibleChannels(db, access);
  if (membershipType !== undefined) q = q.where('file_channels.membership_type', '=', membershipType);
  if (clientId !== undefined) q = q.where('file_channels.client_id', '=', clientId);
  if (companyId !== undefined) q = q.where('file_channels.company_id', '=', companyId);
  if (member?.kind === 'client') q = q.where(clientBelongs(access.workspaceId, member.id));
  else if (member?.kind === 'internalUser' && member.companyIds !== null)
    q = q.where('file_channels.company_id', 'in', nonEmpty(member.companyIds));
  else if (member?.kind === 'unknown') q = q.where(({ lit }) => lit(false));
  const scope = pageScope(access, 'file-channels', { membershipType, clientId, companyId, memberId: filters.memberId });
  const found = await fetchPage(q, 'file_channels', page, tokens, scope, toChannel);
  await pruneDeletedMembers(db, found.data);
  return found;
}

/** A group's memberIds as stored, less the clients deleted since (their member rows went with them). */
async function pruneDeletedMembers(db: Kysely<DB>, channels: FileChannel[]): Promise<void> {
  const groups = channels.filter((channel) => channel.membershipType === 'group');
  if (groups.length === 0) return;
  const rows = await db
    .selectFrom('file_channel_members')
    .select(['channel_id', 'client_id'])
    .where(
      'channel_id',
      'in',
      groups.map((group) => group.id),
    )
    .execute();
  const live = new Set(rows.map((row) => `${row.channel_id}/${row.client_id}`));
  for (const group of groups) {
    const memberIds = (group.memberIds ?? []).filter((id) => live.has(`${group.id}/${id}`));
    if (memberIds.length > 0) group.memberIds = memberIds;
    else delete group.memberIds;
  }
}

/** The channel, if this access sees it (another workspace's, or one outside the caller's reach, is simply not found). */
export async function findChannelRow(db: Kysely<DB>, access: Access, id: string): Promise<FileChannelsTable | undefined> {
  return visibleChannels(db, access).where('file_channels.id', '=', id).executeTakeFirst();
}

export async function findChannel(db: Kysely<DB>, access: Access, id: string): Promise<FileChannel | undefined> {
  const row = await findChannelRow(db, access, id);
  if (!row) return undefined;
  const channel = toChannel(row);
  await pruneDeletedMembers(db, [channel]);
  return channel;
}

export function insertChannel(work: UnitOfWork, row: FileChannelsTable): void {
  work.write(work.db.insertInto('file_channels').values(row));
  const clientIds = splitIds(row.member_ids);
  if (clientIds.length > 0) {
    work.write(work.db.insertInto('file_channel_members').values(clientIds.map((client_id) => ({ channel_id: row.id, client_id }))));
  }
}

/** A new channel's row: members as given, in order; clients may read and write at its root. */
export function channelRow(
  access: Access,
  channel: { id: string; membershipType: FileChannel['membershipType']; companyId: string; clientIds: readonly string[]; at: string },
): FileChannelsTable {
  return {
    id: channel.id,
    workspace_id: access.workspaceId,
    membership_type: channel.membershipType,
    company_id: channel.companyId,
    client_id: channel.membershipType === 'individual' ? channel.clientIds[0] : null,
    member_ids: joinIds(channel.clientIds),
    root_client_permissions: 'read_write',
    created_at: channel.at,
    updated_at: channel.at,
  };
}

export function setRootPermissions(work: UnitOfWork, access: Access, channelId: string, value: ClientPermissions, at: string): void {
  work.write(
    work.db
      .updateTable('file_channels')
      .set({ root_client_permissions: value, updated_at: at })
      .where('workspace_id', '=', access.workspaceId)
      .where('id', '=', channelId),
  );
}

/** A file object of this workspace by id (whether the caller sees its channel is the service's to check). */
export async function findFileRow(db: Kysely<DB>, access: Access, id: string): Promise<FilesTable | undefined> {
  return db.selectFrom('files').selectAll().where('workspace_id', '=', access.workspaceId).where('id', '=', id).executeTakeFirst();
}

/** A file object of the channel at this exact path. */
export async function findAtPath(db: Kysely<DB>, access: Access, channelId: string, path: string): Promise<FilesTable | undefined> {
  return db
    .selectFrom('files')
    .selectAll()
    .where('workspace_id', '=', access.workspaceId)
    .where('channel_id', '=', channelId)
    .where('path', '=', path)
    .executeTakeFirst();
}

// Paths inside a folder: those starting with its path and `/` (substr counts characters, code points, on both backends).

/** Whether anything of the channel lies inside the folder path. */
export async function hasContents(db: Kysely<DB>, access: Access, channelId: string, folderPath: string): Promise<boolean> {
  const prefix = `${folderPath}/`;
  const row = await db
    .selectFrom('files')
    .select('id')
    .where('workspace_id', '=', access.workspaceId)
    .where('channel_id', '=', channelId)
    .where(({ eb, fn, val }) => eb(fn('substr', ['path', val(1), val([...prefix].length)]), '=', prefix))
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

export function insertFile(work: UnitOfWork, row: FilesTable): void {
  work.write(work.db.insertInto('files').values(row), { files_channel_path: row.path });
}

export function deleteFile(work: UnitOfWork, access: Access, id: string): void {
  work.write(work.db.deleteFrom('files').where('workspace_id', '=', access.workspaceId).where('id', '=', id));
}

export function setFolderPermissions(
  work: UnitOfWork,
  access: Access,
  id: string,
  value: ClientPermissions,
  modifiedBy: Pick<FilesTable, 'modified_by_id' | 'modified_by_object' | 'updated_at'>,
): void {
  work.write(
    work.db
      .updateTable('files')
      .set({ client_permissions: value, ...modifiedBy })
      .where('workspace_id', '=', access.workspaceId)
      .where('id', '=', id),
  );
}

/** A file's content arrived: where it is stored, its size and type; the file is completed. */
export function completeUpload(
  work: UnitOfWork,
  workspaceId: string,
  id: string,
  content: { storageKey: string; size: number; contentType: string; at: string },
): void {
  work.write(
    work.db
      .updateTable('files')
      .set({
        status: 'completed',
        storage_key: content.storageKey,
        size: content.size,
        content_type: content.contentType,
        updated_at: content.at,
      })
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', id),
  );
}

/** A file of the workspace by id, for the signed routes (the signature stands for the caller). */
export async function findFileOfWorkspace(db: Kysely<DB>, workspaceId: string, id: string): Promise<FilesTable | undefined> {
  return db.selectFrom('files').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
}

/** Of these files' ids, those still stored (any workspace: the orphan sweep's question). */
export async function existingFileIds(db: Kysely<DB>, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db.selectFrom('files').select(['id', 'workspace_id']).where('id', 'in', ids).execute();
  return new Set(rows.map((row) => `${row.workspace_id}/${row.id}`));
}

/** A page of a channel's file objects, newest first; with `folderPath`, only those inside it at any depth. */
export function listFiles(
  db: Kysely<DB>,
  access: Access,
  channelId: string,
  folderPath: string | undefined,
  page: PageRequest,
  tokens: PageTokens,
): Promise<Page<FileObject>> {
  let q = db.selectFrom('files').selectAll().where('files.workspace_id', '=', access.workspaceId).where('files.channel_id', '=', channelId);
  if (folderPath !== undefined) {
    const prefix = `${folderPath}/`;
    q = q.where(({ eb, fn, val }) => eb(fn('substr', ['files.path', val(1), val([...prefix].length)]), '=', prefix));
  }
  return fetchPage(q, 'files', page, tokens, pageScope(access, `files:${channelId}`, { path: folderPath }), toFile);
}
