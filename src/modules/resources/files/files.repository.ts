import { type ExpressionBuilder, type Kysely, sql } from 'kysely';
import { type Page, type PageRequest, type PageTokens, pageScope, preparedList } from '../../../db/paging.js';
import { lockedForUpdate } from '../../../db/rows.js';
import type { ClientPermissions, DB, FileChannelsTable, FilesTable } from '../../../db/schema.js';
import type { UnitOfWork } from '../../../db/unit-of-work.js';
import type { Access } from '../../../lib/caller.js';
import { findChannelRow as findChannelRowOf, visibleChannelIds as visibleChannelIdsOf } from '../../components/channels/index.js';
import type { ClientPermissionsIn, FileObject } from './files.schemas.js';

/** Permissions as the SDK's retrieveFile declares them (`read-write`), from how its create body spells them (`read_write`). */
export const permissionsOut = (value: ClientPermissions) => (value === 'read_write' ? 'read-write' : 'read-only');

// File channels are the channels component's (modules/components/channels, shared with message channels); what is a file
// channel's own (what clients may do at its root) is read from its row and changed here.

/** The file channel's row, if this access sees it (another workspace's, or one outside the caller's reach, is simply not found). */
function findChannelRow(db: Kysely<DB>, access: Access, id: string): Promise<FileChannelsTable | undefined> {
  return findChannelRowOf(db, access, 'file', id);
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

/**
 * A file object as the API serves it: fields without a value left out, the others assigned one by one (a page maps 100;
 * spreading a small object for each optional field cost about 6 µs a row, a sixth of a page of files).
 */
function toFile(row: FilesTable): FileObject {
  const file: FileObject = {
    id: row.id,
    object: row.object,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    channelId: row.channel_id,
    name: row.name,
    path: row.path,
  };
  if (row.creator_id !== null) file.creatorId = row.creator_id;
  if (row.modified_by_id !== null && row.modified_by_object !== null)
    file.lastModifiedBy = { id: row.modified_by_id, object: row.modified_by_object };
  if (row.link_url !== null) file.linkUrl = row.link_url;
  if (row.object === 'file') file.status = row.status;
  if (row.size !== null) file.size = Number(row.size);
  if (row.content_type !== null) file.contentType = row.content_type;
  if (row.client_permissions !== null) file.clientPermissions = permissionsOut(row.client_permissions);
  return file;
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
const visibleChannelIds = (db: Kysely<DB>, access: Access) => visibleChannelIdsOf(db, access, 'file');

/**
 * What a client session sees of a channel it belongs to: everything but the files still `pending` that
 * someone else created (their upload is unfinished work, the uploader's until its content arrived).
 */
const finishedOrOwn =
  (clientId: string) =>
  ({ eb, or }: ExpressionBuilder<DB, 'files'>) =>
    or([eb('files.status', '=', 'completed'), eb('files.creator_id', '=', clientId)]);

/** The query of a file object of this workspace by id, unless a client session may not see it yet. */
function fileById(db: Kysely<DB>, access: Access, id: string) {
  const q = db.selectFrom('files').selectAll().where('files.workspace_id', '=', access.workspaceId).where('files.id', '=', id);
  return access.clientId ? q.where(finishedOrOwn(access.clientId)) : q;
}

/** A file object of this workspace by id, unless a client session may not see it yet (whether the caller sees its channel is the service's to check). */
export async function findFile(db: Kysely<DB>, access: Access, id: string): Promise<StoredFile | undefined> {
  const row = await fileById(db, access, id).executeTakeFirst();
  return row && toStored(row);
}

/**
 * As findFile, its row locked until the unit's transaction ends on PostgreSQL (SQLite has one writer): a folder's
 * delete then checks it is empty while nothing can be created or moved into it (they hold it, findFolderForShare).
 */
export async function findFileForUpdate(work: UnitOfWork, access: Access, id: string): Promise<StoredFile | undefined> {
  const row = await lockedForUpdate(fileById(work.db, access, id), work.database.dialect).executeTakeFirst();
  return row && toStored(row);
}

/** The query of the folder of the channel at this exact path (a file or link there is not one). */
const folderAt = (db: Kysely<DB>, access: Access, channelId: string, path: string) =>
  db
    .selectFrom('files')
    .selectAll()
    .where('workspace_id', '=', access.workspaceId)
    .where('channel_id', '=', channelId)
    .where('path', '=', path)
    .where('object', '=', 'folder');

/** The folder of the channel at this exact path (a file or link there is not one). */
export async function findFolder(db: Kysely<DB>, access: Access, channelId: string, path: string): Promise<StoredFile | undefined> {
  const row = await folderAt(db, access, channelId, path).executeTakeFirst();
  return row && toStored(row);
}

/**
 * As findFolder, its row share-locked until the unit's transaction ends on PostgreSQL (SQLite has one writer): what
 * is put in the folder commits before the folder can be deleted (its delete then finds it not empty), or finds it gone.
 */
export async function findFolderForShare(
  work: UnitOfWork,
  access: Access,
  channelId: string,
  path: string,
): Promise<StoredFile | undefined> {
  const q = folderAt(work.db, access, channelId, path);
  const row = await (work.database.dialect === 'postgres' ? q.forShare() : q).executeTakeFirst();
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
  const prefix = folderPath === undefined ? undefined : `${folderPath}/`;
  const params = {
    workspaceId: access.workspaceId,
    channelId,
    clientId: access.clientId ?? undefined,
    prefix,
    prefixLength: prefix === undefined ? undefined : [...prefix].length,
  };
  return channelFiles(db, params, page, tokens, pageScope(access, `files:${channelId}`, { path: folderPath }));
}

/** A page of a channel's files: prepared, one statement for each of staff and a client session, in a folder or not. */
const channelFiles = preparedList(
  'files_page',
  (db, p: { workspaceId: string; channelId: string; clientId?: string; prefix?: string; prefixLength?: number }) => {
    let q = db.selectFrom('files').selectAll().where('files.workspace_id', '=', p.workspaceId).where('files.channel_id', '=', p.channelId);
    if (p.clientId !== undefined) q = q.where(finishedOrOwn(p.clientId));
    if (p.prefix !== undefined) {
      const prefix = p.prefix;
      q = q.where(({ eb, fn, val }) => eb(fn('substr', ['files.path', val(1), val(p.prefixLength)]), '=', prefix));
    }
    return q;
  },
  'files',
  toFile,
);

/** The query of these file objects of this workspace, by id, unless a client session may not see them yet. */
function filesByIds(db: Kysely<DB>, access: Access, ids: readonly string[]) {
  const q = db.selectFrom('files').selectAll().where('files.workspace_id', '=', access.workspaceId).where('files.id', 'in', ids);
  return access.clientId ? q.where(finishedOrOwn(access.clientId)) : q;
}

/** These file objects of this workspace, by id, unless a client session may not see them yet (channels are the service's to check). */
export async function findFiles(db: Kysely<DB>, access: Access, ids: readonly string[]): Promise<StoredFile[]> {
  return (await filesByIds(db, access, ids).execute()).map(toStored);
}

/** As findFiles, their rows locked until the unit's transaction ends on PostgreSQL, in id order (two batches never wait on each other crosswise). */
export async function findFilesForUpdate(work: UnitOfWork, access: Access, ids: readonly string[]): Promise<StoredFile[]> {
  const q = filesByIds(work.db, access, ids).orderBy('files.id');
  return (await lockedForUpdate(q, work.database.dialect).execute()).map(toStored);
}

/**
 * What lies inside a folder path, at any depth, by path (a client session: not the pending files someone else
 * created); at most `limit` of them.
 */
export async function findContents(
  db: Kysely<DB>,
  access: Access,
  channelId: string,
  folderPath: string,
  limit: number,
): Promise<StoredFile[]> {
  const prefix = `${folderPath}/`;
  let q = db
    .selectFrom('files')
    .selectAll()
    .where('files.workspace_id', '=', access.workspaceId)
    .where('files.channel_id', '=', channelId)
    .where(({ eb, fn, val }) => eb(fn('substr', ['files.path', val(1), val([...prefix].length)]), '=', prefix));
  if (access.clientId) q = q.where(finishedOrOwn(access.clientId));
  return (await q.orderBy('files.path').limit(limit).execute()).map(toStored);
}

/** A file object's new path, name or link, and who changed it when (a path taken in the channel is a 409). */
export function updateFile(work: UnitOfWork, access: Access, file: FileObject): void {
  work.write(
    work.db
      .updateTable('files')
      .set({
        path: file.path,
        name: file.name,
        link_url: file.linkUrl ?? null,
        modified_by_id: file.lastModifiedBy?.id ?? null,
        modified_by_object: file.lastModifiedBy?.object ?? null,
        updated_at: file.updatedAt,
      })
      .where('workspace_id', '=', access.workspaceId)
      .where('id', '=', file.id)
      .where('channel_id', 'in', visibleChannelIds(work.db, access)),
    { files_channel_path: file.path },
  );
}

/**
 * What lies inside the folder path `from`, at any depth, moved under `to` (`from/x/y` becomes `to/x/y`), in
 * one statement; a path taken in the channel is a 409. Their `updated_at` stays: it is also a pending file's
 * upload claim.
 */
export function moveContents(work: UnitOfWork, access: Access, channelId: string, from: string, to: string): void {
  const prefix = `${from}/`;
  const length = [...prefix].length;
  work.write(
    work.db
      .updateTable('files')
      .set({ path: sql<string>`${`${to}/`} || substr(path, ${length + 1})` })
      .where('workspace_id', '=', access.workspaceId)
      .where('channel_id', '=', channelId)
      .where(({ eb, fn, val }) => eb(fn('substr', ['path', val(1), val(length)]), '=', prefix))
      .where('channel_id', 'in', visibleChannelIds(work.db, access)),
    { files_channel_path: `${to}/…` },
  );
}

export function deleteFiles(work: UnitOfWork, access: Access, ids: readonly string[]): void {
  work.write(
    work.db
      .deleteFrom('files')
      .where('workspace_id', '=', access.workspaceId)
      .where('id', 'in', ids)
      .where('channel_id', 'in', visibleChannelIds(work.db, access)),
  );
}

/** How many objects lie inside the folder path, at any depth, whether the caller sees them or not. */
export async function countContents(db: Kysely<DB>, access: Access, channelId: string, folderPath: string): Promise<number> {
  const prefix = `${folderPath}/`;
  const row = await db
    .selectFrom('files')
    .select(({ fn }) => fn.countAll<number | string | bigint>().as('n'))
    .where('workspace_id', '=', access.workspaceId)
    .where('channel_id', '=', channelId)
    .where(({ eb, fn, val }) => eb(fn('substr', ['path', val(1), val([...prefix].length)]), '=', prefix))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
