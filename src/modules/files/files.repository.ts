import type { ExpressionBuilder, Kysely } from 'kysely';
import { type Page, type PageRequest, type PageTokens, fetchPage, pageScope } from '../../db/paging.js';
import { joinIds, nonEmpty, objectFields, splitIds } from '../../db/rows.js';
import type { ClientPermissions, DB, FileChannelsTable, FilesTable } from '../../db/schema.js';
import type { UnitOfWork } from '../../db/unit-of-work.js';
import type { Access } from '../../lib/caller.js';
import type { ClientPermissionsIn, FileChannel, FileObject } from './files.schemas.js';

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
async function findChannelRow(db: Kysely<DB>, access: Access, id: string): Promise<FileChannelsTable | undefined> {
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

// ---------------------------------------------------------------------------------------------------------
// Files, folders and links

/** A channel as its files need it: its id, its company (the audit scope) and what clients may do at its root. */
export interface ChannelScope {
  id: string;
  companyId: string;
  rootClientPermissions: ClientPermissionsIn;
}

/** The channel, if this access sees it, as its files need it. */
export async function findChannelScope(db: Kysely<DB>, access: Access, id: string): Promise<ChannelScope | undefined> {
  const row = await findChannelRow(db, access, id);
  return row && { id: row.id, companyId: row.company_id, rootClientPermissions: row.root_client_permissions };
}

/** A file object as the service handles it: as served (signed URLs are the service's to add), and where its content is stored. */
export interface StoredFile {
  file: FileObject;
  /** files: the content's key in the store, from the moment an upload claims the file */
  storageKey: string | null;
}

/** permissionsOut's reverse: permissions as stored, and as the create and permissions bodies (and audit entries) spell them. */
export const permissionsIn = (value: FileObject['clientPermissions']): ClientPermissionsIn =>
  value === 'read-only' ? 'read_only' : 'read_write';

/** A file object as the API serves it: fields without a value left out. */
function toFile(row: FilesTable): FileObject {
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

const toStored = (row: FilesTable): StoredFile => ({ file: toFile(row), storageKey: row.storage_key });

/** The row of a file object (the workspace the access's). */
function toRow(access: Access, { file, storageKey }: StoredFile): FilesTable {
  return {
    id: file.id,
    workspace_id: access.workspaceId,
    channel_id: file.channelId,
    object: file.object,
    path: file.path,
    name: file.name,
    link_url: file.linkUrl ?? null,
    client_permissions: file.clientPermissions === undefined ? null : permissionsIn(file.clientPermissions),
    status: file.status ?? 'completed',
    size: file.size ?? null,
    content_type: file.contentType ?? null,
    storage_key: storageKey,
    creator_id: file.creatorId ?? null,
    modified_by_id: file.lastModifiedBy?.id ?? null,
    modified_by_object: file.lastModifiedBy?.object ?? null,
    created_at: file.createdAt,
    updated_at: file.updatedAt,
  };
}

/** The ids of the channels this access sees (the company scope of every write on files). */
const visibleChannelIds = (db: Kysely<DB>, access: Access) => visibleChannels(db, access).clearSelect().select('file_channels.id');

/**
 * What a client session sees of a channel it belongs to: everything but the files still `pending` that
 * someone else created (their upload is unfinished work, the uploader's until its content arrived).
 */
const finishedOrOwn =
  (clientId: string) =>
  ({ eb, or }: ExpressionBuilder<DB, 'files'>) =>
    or([eb('files.status', '=', 'completed'), eb('files.creator_id', '=', clientId)]);

/** A file object of this workspace by id, unless a client session may not see it yet (whether the caller sees its channel is the service's to check). */
export async function findFile(db: Kysely<DB>, access: Access, id: string): Promise<StoredFile | undefined> {
  let q = db.selectFrom('files').selectAll().where('files.workspace_id', '=', access.workspaceId).where('files.id', '=', id);
  if (access.clientId) q = q.where(finishedOrOwn(access.clientId));
  const row = await q.executeTakeFirst();
  return row && toStored(row);
}

/** The folder of the channel at this exact path (a file or link there is not one). */
export async function findFolder(db: Kysely<DB>, access: Access, channelId: string, path: string): Promise<StoredFile | undefined> {
  const row = await db
    .selectFrom('files')
    .selectAll()
    .where('workspace_id', '=', access.workspaceId)
    .where('channel_id', '=', channelId)
    .where('path', '=', path)
    .where('object', '=', 'folder')
    .executeTakeFirst();
  return row && toStored(row);
}

// Paths inside a folder: those starting with its path and `/` (substr counts characters, code points, on both backends).

/** Whether anything of the channel lies inside the folder path, whether the caller sees it or not. */
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

/** Stores a new file object (in a channel of this access's the service found; a path taken in the channel is a 409). */
export function insertFile(work: UnitOfWork, access: Access, stored: StoredFile): void {
  const row = toRow(access, stored);
  work.write(work.db.insertInto('files').values(row), { files_channel_path: row.path });
}

export function deleteFile(work: UnitOfWork, access: Access, id: string): void {
  work.write(
    work.db
      .deleteFrom('files')
      .where('workspace_id', '=', access.workspaceId)
      .where('id', '=', id)
      .where('channel_id', 'in', visibleChannelIds(work.db, access)),
  );
}

export function setRootPermissions(work: UnitOfWork, access: Access, channelId: string, value: ClientPermissionsIn, at: string): void {
  work.write(
    work.db
      .updateTable('file_channels')
      .set({ root_client_permissions: value, updated_at: at })
      .where('workspace_id', '=', access.workspaceId)
      .where('id', '=', channelId)
      .where('id', 'in', visibleChannelIds(work.db, access)),
  );
}

/** A folder's new permissions, and who set them when. */
export function setFolderPermissions(work: UnitOfWork, access: Access, folder: FileObject): void {
  work.write(
    work.db
      .updateTable('files')
      .set({
        client_permissions: permissionsIn(folder.clientPermissions),
        modified_by_id: folder.lastModifiedBy?.id ?? null,
        modified_by_object: folder.lastModifiedBy?.object ?? null,
        updated_at: folder.updatedAt,
      })
      .where('workspace_id', '=', access.workspaceId)
      .where('id', '=', folder.id)
      .where('object', '=', 'folder')
      .where('channel_id', 'in', visibleChannelIds(work.db, access)),
  );
}

/**
 * Claims a pending file for one upload, in the unit's commit: its storage key set and `updated_at` the claim's
 * time, unless another upload holds it (claimed since `staleBefore`) or it is completed already. The function
 * returned says, once committed, whether this claim took it.
 */
export function claimUpload(
  work: UnitOfWork,
  access: Access,
  id: string,
  claim: { storageKey: string; at: string; staleBefore: string },
): () => boolean {
  const statement = work.db
    .updateTable('files')
    .set({ storage_key: claim.storageKey, updated_at: claim.at })
    .where('workspace_id', '=', access.workspaceId)
    .where('id', '=', id)
    .where('object', '=', 'file')
    .where('status', '=', 'pending')
    .where(({ eb, or }) => or([eb('storage_key', 'is', null), eb('updated_at', '<', claim.staleBefore)]))
    .returning('id')
    .compile();
  return work.writeReturning(statement, (row) => row !== undefined);
}

/** Gives back an upload's claim that came to nothing (its content refused or cut short): the file can be uploaded again. */
export function releaseUpload(work: UnitOfWork, access: Access, id: string, claimedAt: string): void {
  work.write(
    work.db
      .updateTable('files')
      .set({ storage_key: null })
      .where('workspace_id', '=', access.workspaceId)
      .where('id', '=', id)
      .where('status', '=', 'pending')
      .where('updated_at', '=', claimedAt),
  );
}

/**
 * A file's content arrived under the claim made at `claimedAt`: its size and type; the file is completed. The
 * function returned says, once committed, whether the claim still held (not deleted, not taken over).
 */
export function completeUpload(
  work: UnitOfWork,
  access: Access,
  id: string,
  content: { claimedAt: string; size: number; contentType: string; at: string },
): () => boolean {
  const statement = work.db
    .updateTable('files')
    .set({ status: 'completed', size: content.size, content_type: content.contentType, updated_at: content.at })
    .where('workspace_id', '=', access.workspaceId)
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .where('updated_at', '=', content.claimedAt)
    .returning('id')
    .compile();
  return work.writeReturning(statement, (row) => row !== undefined);
}

/** Of these files' ids, those still stored (any workspace: the orphan sweep's question, asked for the system). */
export async function existingFileIds(db: Kysely<DB>, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db.selectFrom('files').select(['id', 'workspace_id']).where('id', 'in', ids).execute();
  return new Set(rows.map((row) => `${row.workspace_id}/${row.id}`));
}

/**
 * A page of a channel's file objects, newest first; with `folderPath`, only those inside it at any depth. A
 * client session does not see the pending files someone else created.
 */
export function listFiles(
  db: Kysely<DB>,
  access: Access,
  channelId: string,
  folderPath: string | undefined,
  page: PageRequest,
  tokens: PageTokens,
): Promise<Page<FileObject>> {
  let q = db.selectFrom('files').selectAll().where('files.workspace_id', '=', access.workspaceId).where('files.channel_id', '=', channelId);
  if (access.clientId) q = q.where(finishedOrOwn(access.clientId));
  if (folderPath !== undefined) {
    const prefix = `${folderPath}/`;
    q = q.where(({ eb, fn, val }) => eb(fn('substr', ['files.path', val(1), val([...prefix].length)]), '=', prefix));
  }
  return fetchPage(q, 'files', page, tokens, pageScope(access, `files:${channelId}`, { path: folderPath }), toFile);
}
