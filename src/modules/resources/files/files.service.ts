// File channels and their file objects (files, folders, links): create, read, list, rename or move, delete, and folders' permissions.
import { recordAudit } from '../../../audit/index.js';
import type { Database, DbHandle } from '../../../db/database.js';
import type { Page, PageTokens } from '../../../db/paging.js';
import { unitOfWork } from '../../../db/unit-of-work.js';
import { type Caller, isClient } from '../../../lib/caller.js';
import { isoAt } from '../../../lib/clock.js';
import { type FieldProblem, errors, orNotFound } from '../../../lib/errors.js';
import { newRowId } from '../../../lib/row-id.js';
import * as channels from '../../components/channels/index.js';
import type { FileChannel, FileChannelCreate, FileChannelListQuery } from '../../components/channels/index.js';
import { normalizePath, parentPath } from './file-paths.js';
import { mayWrite, modifierOf } from './file-permissions.js';
import type { FileStore } from './file-store.js';
import * as repo from './files.repository.js';
import type {
  ClientPermissionsIn,
  FileCreate,
  FileCreateDeprecated,
  FileListQuery,
  FileObject,
  FileUpdate,
  FolderDeprecated,
  Permissions,
  PermissionsUpdate,
} from './files.schemas.js';
import { type UrlSettings, withUrls } from './signed-urls.js';

/** What the files service needs beyond the database: the content store, the URL signer and their settings. */
export interface FileSettings extends UrlSettings {
  readonly store: FileStore;
  readonly maxBytes: number;
  /** Longer than any upload may take (twice REQUEST_TIMEOUT_MS): an upload's claim older than this was cut short by a killed process. */
  readonly uploadGraceMs: number;
}

// ---------------------------------------------------------------------------------------------------------
// Channels

/** Creates a file channel for one client, clients of one company or a company (every failing field named in one 400). */
export function createChannel(database: Database, caller: Caller, input: FileChannelCreate): Promise<FileChannel> {
  // The specification has no event for a file channel's creation: none is recorded.
  return channels.createChannel(database, caller, 'file', input);
}

export function listChannels(
  database: Database,
  caller: Caller,
  query: FileChannelListQuery,
  tokens: PageTokens,
): Promise<Page<FileChannel>> {
  return channels.listChannels(database, caller, 'file', query, tokens);
}

export function getChannel(database: Database, caller: Caller, id: string): Promise<FileChannel> {
  return channels.getChannel(database, caller, 'file', id);
}

// ---------------------------------------------------------------------------------------------------------
// File objects

/** The audit subject of a change to a file object. */
export const subjectOf = (file: FileObject, channel: repo.ChannelScope, data: object = file) => ({
  object: file.object,
  id: file.id,
  data,
  companyId: channel.companyId,
});

/** The channel named by a body's field, if the caller sees it; otherwise the field's problem. */
async function channelFor(
  db: DbHandle,
  caller: Caller,
  id: string,
  field: string,
  problems: FieldProblem[],
): Promise<repo.ChannelScope | undefined> {
  const channel = await repo.findChannelScope(db, caller.access, id);
  if (!channel) problems.push({ path: field, message: 'is not a file channel of this workspace' });
  return channel;
}

interface NewObject {
  type: FileObject['object'];
  channelId: string;
  channelField: string;
  path: string;
  pathField: string;
  linkUrl?: string;
  clientPermissions?: ClientPermissionsIn;
}

/**
 * Checks a new file object (its channel, path, parent folder, link) and stores it with its event, or throws one 400.
 * In a folder, the folder is read and held in the transaction that stores it: a delete of the folder at the same time
 * either commits first (the folder is gone: a 400) or waits for this one (and finds the folder not empty).
 */
async function createObject(database: Database, caller: Caller, input: NewObject): Promise<FileObject> {
  const problems: FieldProblem[] = [];
  const segments = normalizePath(input.path, input.pathField, problems);
  const inFolder = segments !== undefined && segments.length > 1;
  return unitOfWork(
    database,
    async (work) => {
      const channel = await channelFor(work.db, caller, input.channelId, input.channelField, problems);
      if (input.type === 'link') {
        if (input.linkUrl === undefined) problems.push({ path: 'body.linkUrl', message: 'is required for a link' });
        else if (!isHttpUrl(input.linkUrl)) problems.push({ path: 'body.linkUrl', message: 'must be an http(s) URL' });
      } else if (input.linkUrl !== undefined) problems.push({ path: 'body.linkUrl', message: 'is only for links' });
      if (input.type !== 'folder' && input.clientPermissions !== undefined)
        problems.push({ path: 'body.clientPermissions', message: 'is only for folders' });
      let parent: repo.StoredFile | undefined;
      if (segments && channel && inFolder) {
        const folderPath = segments.slice(0, -1).join('/');
        parent = await repo.findFolderForShare(work, caller.access, channel.id, folderPath);
        if (!parent) problems.push({ path: input.pathField, message: `names a folder that does not exist in this channel: ${folderPath}` });
      }
      if (problems.length > 0 || !segments || !channel) throw errors.invalidFields(problems);
      if (!mayWrite(caller, channel, parent?.file)) throw errors.forbidden('Clients may only read in this folder.');
      const at = isoAt(caller.actor.at);
      const modifier = modifierOf(caller);
      const file: FileObject = {
        id: newRowId(),
        object: input.type,
        channelId: channel.id,
        createdAt: at,
        updatedAt: at,
        ...(modifier ? { creatorId: modifier.id, lastModifiedBy: modifier } : {}),
        name: segments[segments.length - 1],
        path: segments.join('/'),
        ...(input.type === 'link' ? { linkUrl: input.linkUrl } : {}),
        ...(input.type === 'file' ? { status: 'pending' as const } : {}),
        ...(input.type === 'folder' ? { clientPermissions: repo.permissionsOut(input.clientPermissions ?? 'read_write') } : {}),
      };
      repo.insertFile(work, caller.access, { file, storageKey: null });
      recordAudit(work, caller.actor, {
        eventType: `${input.type}Created`,
        description: `${input.type[0].toUpperCase()}${input.type.slice(1)} created`,
        context: { channelId: channel.id, fileId: file.id, path: file.path },
        subject: subjectOf(file, channel),
      });
      return file;
    },
    // At the root there is no folder to hold: the reads run first and the write joins SQLite's group commit.
    { transaction: inFolder },
  );
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/** Creates a file (content to follow, PUT to its uploadUrl), a folder or a link in a channel the caller sees. */
export async function createFile(
  database: Database,
  caller: Caller,
  settings: FileSettings,
  type: FileObject['object'],
  input: FileCreate,
): Promise<FileObject> {
  const file = await createObject(database, caller, {
    type,
    channelId: input.channelId,
    channelField: 'body.channelId',
    path: input.path,
    pathField: 'body.path',
    linkUrl: input.linkUrl,
    clientPermissions: input.clientPermissions,
  });
  // Its creator may write there: createObject checked it.
  return withUrls(settings, caller, file, true);
}

/** The deprecated create (`POST /v1/file`): folders only, in its own answer's shape. */
export async function createFileDeprecated(database: Database, caller: Caller, input: FileCreateDeprecated): Promise<FolderDeprecated> {
  if (input.path === undefined)
    throw errors.invalidFields([{ path: 'body.path', message: 'is required: the new folder’s path, its name last' }]);
  const folder = await createObject(database, caller, {
    type: 'folder',
    channelId: input.channelID,
    channelField: 'body.channelID',
    path: input.path,
    pathField: 'body.path',
  });
  return {
    id: folder.id,
    object: 'folder',
    ...(folder.creatorId !== undefined ? { createdBy: folder.creatorId } : {}),
    createdAt: folder.createdAt,
    updatedAt: folder.updatedAt,
    channelId: folder.channelId,
    fields: { path: folder.path, starred: false },
  };
}

/** A file object the caller sees (its channel, and for a client session not someone else's pending file; else 404), with its channel. */
export async function visibleFile(
  database: Database,
  caller: Caller,
  id: string,
): Promise<{ stored: repo.StoredFile; channel: repo.ChannelScope }> {
  return withChannel(database.db, caller, await repo.findFile(database.db, caller.access, id));
}

/** The file object found, with its channel, if the caller sees both (else 404). */
async function withChannel(
  db: DbHandle,
  caller: Caller,
  found: repo.StoredFile | undefined,
): Promise<{ stored: repo.StoredFile; channel: repo.ChannelScope }> {
  const stored = orNotFound(found, 'File');
  const channel = orNotFound(await repo.findChannelScope(db, caller.access, stored.file.channelId), 'File');
  return { stored, channel };
}

export async function getFile(database: Database, caller: Caller, settings: FileSettings, id: string): Promise<FileObject> {
  const { stored, channel } = await visibleFile(database, caller, id);
  const { file } = stored;
  if (file.object !== 'file' || file.status === 'completed' || !isClient(caller.principal)) return withUrls(settings, caller, file, true);
  // A client's own pending file: its uploadUrl only while clients may still write where it is.
  const folderPath = parentPath(file.path);
  const parent = folderPath === undefined ? undefined : await repo.findFolder(database.db, caller.access, channel.id, folderPath);
  return withUrls(settings, caller, file, mayWrite(caller, channel, parent?.file));
}

/** A channel's file objects, newest first (`path`: only inside that folder, at any depth); a channel the caller does not see is a 404. */
export async function listFiles(database: Database, caller: Caller, query: FileListQuery, tokens: PageTokens): Promise<Page<FileObject>> {
  return channels.channelPage(database, caller, 'file', query.channelId, async (channelId) => {
    let folderPath: string | undefined;
    if (query.path !== undefined && query.path.replace(/^\/|\/$/g, '') !== '') {
      const problems: FieldProblem[] = [];
      folderPath = normalizePath(query.path, 'querystring.path', problems)?.join('/');
      if (problems.length > 0) throw errors.invalidFields(problems);
    }
    return repo.listFiles(database.db, caller.access, channelId, folderPath, { limit: query.limit, nextToken: query.nextToken }, tokens);
  });
}

/**
 * Deletes a file, folder or link (a folder only when empty: "Folder is not empty", 400, so a delete never
 * reaches anything but the one object), with its event; a file's content is removed from the store once
 * the deletion committed. The object is read locked, and a folder found empty, in the transaction that deletes
 * it: what is created or moved into the folder meanwhile waits, then finds it gone (createObject, updateFile).
 */
export async function deleteFile(
  database: Database,
  caller: Caller,
  settings: FileSettings,
  id: string,
): Promise<{ id: string; object: FileObject['object']; deleted: true }> {
  const stored = await unitOfWork(
    database,
    async (work) => {
      const { stored, channel } = await withChannel(work.db, caller, await repo.findFileForUpdate(work, caller.access, id));
      const { file } = stored;
      if (file.object === 'folder' && (await repo.hasContents(work.db, caller.access, channel.id, file.path))) {
        throw errors.badRequest('Folder is not empty');
      }
      repo.deleteFile(work, caller.access, file.id);
      recordAudit(work, caller.actor, {
        eventType: `${file.object}Deleted`,
        description: `${file.object[0].toUpperCase()}${file.object.slice(1)} deleted`,
        context: { channelId: channel.id, fileId: file.id, path: file.path },
        subject: subjectOf(file, channel),
      });
      return stored;
    },
    { transaction: true },
  );
  const { file } = stored;
  if (stored.storageKey !== null) await settings.store.remove(stored.storageKey);
  return { id: file.id, object: file.object, deleted: true };
}

// ---------------------------------------------------------------------------------------------------------
// Rename, move, permissions

const capitalized = (word: string) => `${word[0].toUpperCase()}${word.slice(1)}`;

/**
 * Renames or moves a file, folder or link within its channel (`path`), and gives a link a new `linkUrl`, with
 * fileUpdated, folderUpdated or linkUpdated. A folder's contents follow at any depth, in the same transaction;
 * a folder cannot go inside itself (400 naming body.path); the new path's folders must exist (400); a path
 * taken is a 409. Staff only (the route's policy): a client session is a 403.
 */
export async function updateFile(
  database: Database,
  caller: Caller,
  settings: FileSettings,
  id: string,
  input: FileUpdate,
): Promise<FileObject> {
  const { access } = caller;
  const updated = await unitOfWork(
    database,
    async (work) => {
      // Locked until the move commits: what is created in a folder meanwhile commits first (and is moved with it) or finds it moved.
      const stored = orNotFound(await repo.findFileForUpdate(work, access, id), 'File');
      const channel = orNotFound(await repo.findChannelScope(work.db, access, stored.file.channelId), 'File');
      const { file } = stored;
      const problems: FieldProblem[] = [];
      if (input.linkUrl !== undefined) {
        if (file.object !== 'link') problems.push({ path: 'body.linkUrl', message: 'is only for links' });
        else if (!isHttpUrl(input.linkUrl)) problems.push({ path: 'body.linkUrl', message: 'must be an http(s) URL' });
      }
      const segments = input.path === undefined ? undefined : normalizePath(input.path, 'body.path', problems);
      const path = segments?.join('/') ?? file.path;
      const moved = path !== file.path;
      if (moved && file.object === 'folder' && path.startsWith(`${file.path}/`)) {
        problems.push({ path: 'body.path', message: 'may not be inside the folder itself' });
      } else if (moved && segments && segments.length > 1) {
        const folderPath = segments.slice(0, -1).join('/');
        // Held until the move commits, as a creation's folder (createObject).
        if (!(await repo.findFolderForShare(work, access, channel.id, folderPath)))
          problems.push({ path: 'body.path', message: `names a folder that does not exist in this channel: ${folderPath}` });
      }
      if (problems.length > 0) throw errors.invalidFields(problems);
      // Nothing to change (an empty body, or the path it has): the object as it is, and no event.
      if (!moved && input.linkUrl === undefined) return file;
      const modifier = modifierOf(caller);
      const { lastModifiedBy: _previous, ...rest } = file;
      // A pending file's updated_at is its upload's claim while the upload runs: kept, so the upload completes.
      const claimed = file.object === 'file' && file.status === 'pending' && stored.storageKey !== null;
      const next: FileObject = {
        ...rest,
        path,
        name: segments ? segments[segments.length - 1] : file.name,
        ...(input.linkUrl !== undefined ? { linkUrl: input.linkUrl } : {}),
        ...(modifier ? { lastModifiedBy: modifier } : {}),
        updatedAt: claimed ? file.updatedAt : isoAt(caller.actor.at),
      };
      const contents = moved && file.object === 'folder' ? await repo.countContents(work.db, access, channel.id, file.path) : 0;
      if (contents > 0) repo.moveContents(work, access, channel.id, file.path, path);
      repo.updateFile(work, access, next);
      recordAudit(work, caller.actor, {
        eventType: `${file.object}Updated`,
        description: `${capitalized(file.object)} ${moved ? 'moved' : 'updated'}`,
        context: {
          channelId: channel.id,
          fileId: file.id,
          path,
          ...(moved ? { previousPath: file.path } : {}),
          ...(file.object === 'folder' ? { contentsMoved: contents } : {}),
        },
        previousAttributes: {
          ...(moved ? { path: file.path, name: file.name } : {}),
          ...(input.linkUrl !== undefined ? { linkUrl: file.linkUrl } : {}),
        },
        subject: subjectOf(next, channel),
      });
      return next;
    },
    { transaction: true },
  );
  return withUrls(settings, caller, updated, true);
}

/** Sets what clients may do in a folder, or at a channel's root (`id` = `root`, `channelId` required), with folderUpdated. */
export async function setPermissions(database: Database, caller: Caller, id: string, input: PermissionsUpdate): Promise<Permissions> {
  const value = input.clientPermissions;
  const at = isoAt(caller.actor.at);
  if (id === 'root') {
    const problems: FieldProblem[] = [];
    if (input.channelId === undefined)
      problems.push({ path: 'body.channelId', message: 'is required to set the root folder’s permissions' });
    const channel =
      input.channelId === undefined ? undefined : await channelFor(database.db, caller, input.channelId, 'body.channelId', problems);
    if (problems.length > 0 || !channel) throw errors.invalidFields(problems);
    const answer: Permissions = { id: 'root', channelId: channel.id, clientPermissions: repo.permissionsOut(value) };
    await unitOfWork(database, async (work) => {
      repo.setRootPermissions(work, caller.access, channel.id, value, at);
      recordAudit(work, caller.actor, {
        eventType: 'folderUpdated',
        description: 'Root folder permissions set',
        context: { channelId: channel.id, folderId: 'root', clientPermissions: value },
        previousAttributes: { clientPermissions: channel.rootClientPermissions },
        subject: { object: 'folder', id: channel.id, data: answer, companyId: channel.companyId },
      });
    });
    return answer;
  }
  const { stored, channel } = await visibleFile(database, caller, id);
  const folder = stored.file;
  if (folder.object !== 'folder') throw errors.badRequest('Permissions are set on folders only (or on `root`).');
  if (input.channelId !== undefined && input.channelId !== channel.id) {
    throw errors.invalidFields([{ path: 'body.channelId', message: 'is not the folder’s channel' }]);
  }
  const modifier = modifierOf(caller);
  const answer: Permissions = { id: folder.id, channelId: channel.id, clientPermissions: repo.permissionsOut(value) };
  const { lastModifiedBy: _previous, ...rest } = folder;
  const updated: FileObject = {
    ...rest,
    clientPermissions: answer.clientPermissions,
    ...(modifier ? { lastModifiedBy: modifier } : {}),
    updatedAt: at,
  };
  await unitOfWork(database, async (work) => {
    repo.setFolderPermissions(work, caller.access, updated);
    recordAudit(work, caller.actor, {
      eventType: 'folderUpdated',
      description: 'Folder permissions set',
      context: { channelId: channel.id, folderId: folder.id, clientPermissions: value },
      previousAttributes: { clientPermissions: repo.permissionsIn(folder.clientPermissions) },
      subject: subjectOf(updated, channel),
    });
  });
  return answer;
}
