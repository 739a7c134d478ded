import type { Kysely } from 'kysely';
import { type Page, type PageRequest, type PageTokens, fetchPage, pageScope } from '../../db/paging.js';
import { objectFields } from '../../db/rows.js';
import type { ClientPermissions, DB, FileChannelsTable, FilesTable } from '../../db/schema.js';
import type { UnitOfWork } from '../../db/unit-of-work.js';
import type { Access } from '../../lib/caller.js';
import { findChannelRow as findChannelRowOf } from '../channels/index.js';
import type { FileObject } from './files.schemas.js';

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

// File channels are the channels component's (modules/channels, shared with message channels); what is a file
// channel's own (what clients may do at its root) is read from its row and changed here.

/** The file channel's row, if this access sees it (another workspace's, or one outside the caller's reach, is simply not found). */
export function findChannelRow(db: Kysely<DB>, access: Access, id: string): Promise<FileChannelsTable | undefined> {
  return findChannelRowOf(db, access, 'file', id);
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
