import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { recordAudit } from '../../audit/index.js';
import type { Database } from '../../db/database.js';
import type { Page, PageTokens } from '../../db/paging.js';
import type { ClientPermissions, FileChannelsTable, FilesTable } from '../../db/schema.js';
import { unitOfWork } from '../../db/unit-of-work.js';
import type { Caller } from '../../lib/caller.js';
import { isoAt } from '../../lib/clock.js';
import { ApiError, type FieldProblem, errors, orNotFound } from '../../lib/errors.js';
import * as channels from '../channels/index.js';
import type { FileChannel, FileChannelCreate, FileChannelListQuery } from '../channels/index.js';
import type { FileStore } from './file-store.js';
import * as repo from './files.repository.js';
import {
  type FileCreate,
  type FileCreateDeprecated,
  type FileListQuery,
  type FileObject,
  type FolderDeprecated,
  MAX_NAME_LENGTH,
  MAX_PATH_DEPTH,
  type Permissions,
  type PermissionsUpdate,
} from './files.schemas.js';
import type { SignedAction, UrlSigner } from './signed-urls.js';

/** What the files service needs beyond the database: the content store, the URL signer and their settings. */
export interface FileSettings {
  readonly store: FileStore;
  readonly signer: UrlSigner;
  readonly maxBytes: number;
  readonly urlTtlSeconds: number;
}

/** Where signed URLs point: this service as the caller reached it (`https://files.example.com`). */
export type Origin = string;

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
// Paths

/** Control characters (C0, DEL, C1) and the separators a file system could read as a path of its own. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters refused
const FORBIDDEN = /[\u0000-\u001f\u007f-\u009f\\]/;

/**
 * A path as stored: its segments joined by `/`, one leading or trailing `/` dropped. Each segment is a
 * name of 1–255 characters, not `.` or `..`, without `\` or control characters, and not only white space;
 * so no path names anything outside its channel (content is stored under the service's own keys anyway).
 */
function normalizePath(raw: string, field: string, problems: FieldProblem[]): string[] | undefined {
  const trimmed = raw.replace(/^\//, '').replace(/\/$/, '');
  const segments = trimmed.split('/');
  const bad = (message: string) => {
    problems.push({ path: field, message });
    return undefined;
  };
  if (trimmed === '') return bad('must name something: a path of one or more names separated by /');
  if (segments.length > MAX_PATH_DEPTH) return bad(`has more than ${MAX_PATH_DEPTH} segments`);
  for (const segment of segments) {
    if (segment === '') return bad('has an empty segment (//)');
    if (segment === '.' || segment === '..') return bad('may not have . or .. segments');
    if (FORBIDDEN.test(segment)) return bad('may not hold \\ or control characters');
    if (segment.trim() === '') return bad('has a segment of white space only');
    if ([...segment].length > MAX_NAME_LENGTH) return bad(`has a segment longer than ${MAX_NAME_LENGTH} characters`);
  }
  return segments;
}

// ---------------------------------------------------------------------------------------------------------
// File objects

/** Who a change is recorded as on the row: a client session's client, an internal user's session's user; a key: nobody. */
function modifierOf(caller: Caller): { id: string; object: 'client' | 'internalUser' } | undefined {
  const { principal } = caller;
  if (principal.kind === 'clientSession') return { id: principal.clientId, object: 'client' };
  if (principal.kind === 'internalUserSession') return { id: principal.internalUserId, object: 'internalUser' };
  return undefined;
}

function signedUrl(settings: FileSettings, origin: Origin, action: SignedAction, row: FilesTable, nowMs: number): string {
  const expires = Math.floor(nowMs / 1000) + settings.urlTtlSeconds;
  const route = action === 'upload' ? 'uploads' : 'downloads';
  return `${origin}/files/${route}/${row.id}?${settings.signer.sign(action, row.workspace_id, row.id, expires)}`;
}

/** A file object as a single answer: a file with content gets its downloadUrl, one without its uploadUrl. */
function withUrls(settings: FileSettings, origin: Origin, row: FilesTable, nowMs: number): FileObject {
  const file = repo.toFile(row);
  if (row.object !== 'file') return file;
  if (row.status === 'completed') return { ...file, downloadUrl: signedUrl(settings, origin, 'download', row, nowMs) };
  return { ...file, uploadUrl: signedUrl(settings, origin, 'upload', row, nowMs) };
}

const subjectOf = (row: FilesTable, channel: FileChannelsTable, data: object) => ({
  object: row.object,
  id: row.id,
  data,
  companyId: channel.company_id,
});

/** The channel named by a body's field, if the caller sees it; otherwise the field's problem. */
async function channelFor(
  database: Database,
  caller: Caller,
  id: string,
  field: string,
  problems: FieldProblem[],
): Promise<FileChannelsTable | undefined> {
  const channel = await repo.findChannelRow(database.db, caller.access, id.toLowerCase());
  if (!channel) problems.push({ path: field, message: 'is not a file channel of this workspace' });
  return channel;
}

/**
 * What clients may do where a new object goes: the folder holding it, or the channel's root. A client
 * session may create only where clients may write (403 otherwise).
 */
function assertClientMayWrite(caller: Caller, channel: FileChannelsTable, parent: FilesTable | undefined): void {
  if (caller.principal.kind !== 'clientSession') return;
  const permissions = parent ? parent.client_permissions : channel.root_client_permissions;
  if (permissions !== 'read_write') throw errors.forbidden('Clients may only read in this folder.');
}

interface NewObject {
  type: FilesTable['object'];
  channelId: string;
  channelField: string;
  path: string;
  pathField: string;
  linkUrl?: string;
  clientPermissions?: ClientPermissions;
}

/** Checks a new file object (its channel, path, parent folder, link) and stores it with its event, or throws one 400. */
async function createObject(
  database: Database,
  caller: Caller,
  input: NewObject,
): Promise<{ row: FilesTable; channel: FileChannelsTable }> {
  const problems: FieldProblem[] = [];
  const segments = normalizePath(input.path, input.pathField, problems);
  const channel = await channelFor(database, caller, input.channelId, input.channelField, problems);
  if (input.type === 'link') {
    if (input.linkUrl === undefined) problems.push({ path: 'body.linkUrl', message: 'is required for a link' });
    else if (!isHttpUrl(input.linkUrl)) problems.push({ path: 'body.linkUrl', message: 'must be an http(s) URL' });
  } else if (input.linkUrl !== undefined) problems.push({ path: 'body.linkUrl', message: 'is only for links' });
  if (input.type !== 'folder' && input.clientPermissions !== undefined)
    problems.push({ path: 'body.clientPermissions', message: 'is only for folders' });
  let parent: FilesTable | undefined;
  if (segments && channel && segments.length > 1) {
    const parentPath = segments.slice(0, -1).join('/');
    parent = await repo.findAtPath(database.db, caller.access, channel.id, parentPath);
    if (parent?.object !== 'folder') {
      problems.push({ path: input.pathField, message: `names a folder that does not exist in this channel: ${parentPath}` });
    }
  }
  if (problems.length > 0 || !segments || !channel) throw errors.invalidFields(problems);
  assertClientMayWrite(caller, channel, parent);
  const at = isoAt(caller.actor.at);
  const modifier = modifierOf(caller);
  const row: FilesTable = {
    id: randomUUID(),
    workspace_id: caller.access.workspaceId,
    channel_id: channel.id,
    object: input.type,
    path: segments.join('/'),
    name: segments[segments.length - 1],
    link_url: input.type === 'link' ? (input.linkUrl ?? null) : null,
    client_permissions: input.type === 'folder' ? (input.clientPermissions ?? 'read_write') : null,
    status: input.type === 'file' ? 'pending' : 'completed',
    size: null,
    content_type: null,
    storage_key: null,
    creator_id: modifier?.id ?? null,
    modified_by_id: modifier?.id ?? null,
    modified_by_object: modifier?.object ?? null,
    created_at: at,
    updated_at: at,
  };
  await unitOfWork(database, async (work) => {
    repo.insertFile(work, row);
    recordAudit(work, caller.actor, {
      eventType: `${input.type}Created`,
      description: `${input.type[0].toUpperCase()}${input.type.slice(1)} created`,
      context: { channelId: channel.id, fileId: row.id, path: row.path },
      subject: subjectOf(row, channel, repo.toFile(row)),
    });
  });
  return { row, channel };
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
  origin: Origin,
  type: FilesTable['object'],
  input: FileCreate,
): Promise<FileObject> {
  const { row } = await createObject(database, caller, {
    type,
    channelId: input.channelId,
    channelField: 'body.channelId',
    path: input.path,
    pathField: 'body.path',
    linkUrl: input.linkUrl,
    clientPermissions: input.clientPermissions,
  });
  return withUrls(settings, origin, row, caller.actor.at);
}

/** The deprecated create (`POST /v1/file`): folders only, in its own answer's shape. */
export async function createFileDeprecated(database: Database, caller: Caller, input: FileCreateDeprecated): Promise<FolderDeprecated> {
  if (input.path === undefined)
    throw errors.invalidFields([{ path: 'body.path', message: 'is required: the new folder’s path, its name last' }]);
  const { row } = await createObject(database, caller, {
    type: 'folder',
    channelId: input.channelID,
    channelField: 'body.channelID',
    path: input.path,
    pathField: 'body.path',
  });
  return {
    id: row.id,
    object: 'folder',
    ...(row.creator_id !== null ? { createdBy: row.creator_id } : {}),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    channelId: row.channel_id,
    fields: { path: row.path, starred: false },
  };
}

/** A file object whose channel the caller sees (else 404), with its channel. */
async function visibleFile(database: Database, caller: Caller, id: string): Promise<{ row: FilesTable; channel: FileChannelsTable }> {
  const row = orNotFound(await repo.findFileRow(database.db, caller.access, id.toLowerCase()), 'File');
  const channel = orNotFound(await repo.findChannelRow(database.db, caller.access, row.channel_id), 'File');
  return { row, channel };
}

export async function getFile(database: Database, caller: Caller, settings: FileSettings, origin: Origin, id: string): Promise<FileObject> {
  const { row } = await visibleFile(database, caller, id);
  return withUrls(settings, origin, row, caller.actor.at);
}

/** A channel's file objects, newest first (`path`: only inside that folder, at any depth); a channel the caller does not see is a 404. */
export async function listFiles(database: Database, caller: Caller, query: FileListQuery, tokens: PageTokens): Promise<Page<FileObject>> {
  const channel = orNotFound(await repo.findChannelRow(database.db, caller.access, query.channelId.toLowerCase()), 'File channel');
  let folderPath: string | undefined;
  if (query.path !== undefined && query.path.replace(/^\/|\/$/g, '') !== '') {
    const problems: FieldProblem[] = [];
    folderPath = normalizePath(query.path, 'querystring.path', problems)?.join('/');
    if (problems.length > 0) throw errors.invalidFields(problems);
  }
  return repo.listFiles(database.db, caller.access, channel.id, folderPath, { limit: query.limit, nextToken: query.nextToken }, tokens);
}

/**
 * Deletes a file, folder or link (a folder only when empty: "Folder is not empty", 400), with its event; a
 * file's content is removed from the store once the deletion committed.
 */
export async function deleteFile(
  database: Database,
  caller: Caller,
  settings: FileSettings,
  id: string,
): Promise<{ id: string; object: FilesTable['object']; deleted: true }> {
  const { row, channel } = await visibleFile(database, caller, id);
  if (row.object === 'folder' && (await repo.hasContents(database.db, caller.access, channel.id, row.path))) {
    throw errors.badRequest('Folder is not empty');
  }
  await unitOfWork(database, async (work) => {
    repo.deleteFile(work, caller.access, row.id);
    recordAudit(work, caller.actor, {
      eventType: `${row.object}Deleted`,
      description: `${row.object[0].toUpperCase()}${row.object.slice(1)} deleted`,
      context: { channelId: channel.id, fileId: row.id, path: row.path },
      subject: subjectOf(row, channel, repo.toFile(row)),
    });
  });
  if (row.storage_key !== null) await settings.store.remove(row.storage_key);
  return { id: row.id, object: row.object, deleted: true };
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
      input.channelId === undefined ? undefined : await channelFor(database, caller, input.channelId, 'body.channelId', problems);
    if (problems.length > 0 || !channel) throw errors.invalidFields(problems);
    const answer: Permissions = { id: 'root', channelId: channel.id, clientPermissions: repo.permissionsOut(value) };
    await unitOfWork(database, async (work) => {
      repo.setRootPermissions(work, caller.access, channel.id, value, at);
      recordAudit(work, caller.actor, {
        eventType: 'folderUpdated',
        description: 'Root folder permissions set',
        context: { channelId: channel.id, folderId: 'root', clientPermissions: value },
        previousAttributes: { clientPermissions: channel.root_client_permissions },
        subject: { object: 'folder', id: channel.id, data: answer, companyId: channel.company_id },
      });
    });
    return answer;
  }
  const { row, channel } = await visibleFile(database, caller, id);
  if (row.object !== 'folder') throw errors.badRequest('Permissions are set on folders only (or on `root`).');
  if (input.channelId !== undefined && input.channelId.toLowerCase() !== channel.id) {
    throw errors.invalidFields([{ path: 'body.channelId', message: 'is not the folder’s channel' }]);
  }
  const modifier = modifierOf(caller);
  const answer: Permissions = { id: row.id, channelId: channel.id, clientPermissions: repo.permissionsOut(value) };
  const updated: FilesTable = {
    ...row,
    client_permissions: value,
    modified_by_id: modifier?.id ?? null,
    modified_by_object: modifier?.object ?? null,
    updated_at: at,
  };
  await unitOfWork(database, async (work) => {
    repo.setFolderPermissions(work, caller.access, row.id, value, {
      modified_by_id: updated.modified_by_id,
      modified_by_object: updated.modified_by_object,
      updated_at: at,
    });
    recordAudit(work, caller.actor, {
      eventType: 'folderUpdated',
      description: 'Folder permissions set',
      context: { channelId: channel.id, folderId: row.id, clientPermissions: value },
      previousAttributes: { clientPermissions: row.client_permissions },
      subject: subjectOf(updated, channel, repo.toFile(updated)),
    });
  });
  return answer;
}

/** A file's content for the caller who sees it; a folder, a link or a file without content is a 400. */
async function contentOf(database: Database, caller: Caller, id: string): Promise<{ row: FilesTable; channel: FileChannelsTable }> {
  const found = await visibleFile(database, caller, id);
  if (found.row.object !== 'file') throw errors.badRequest(`A ${found.row.object} has no content to download.`);
  if (found.row.status !== 'completed') throw errors.badRequest('This file has no content yet: PUT it to the uploadUrl first.');
  return found;
}

function recordDownload(database: Database, caller: Caller, row: FilesTable, channel: FileChannelsTable, how: string) {
  return unitOfWork(database, async (work) => {
    recordAudit(work, caller.actor, {
      eventType: 'fileDownloaded',
      description: 'File downloaded',
      context: { channelId: channel.id, fileId: row.id, path: row.path, via: how },
      subject: subjectOf(row, channel, repo.toFile(row)),
    });
  });
}

/** A signed download URL for a file the caller sees (fileDownloaded: the URL is how it is downloaded). */
export async function downloadUrl(
  database: Database,
  caller: Caller,
  settings: FileSettings,
  origin: Origin,
  id: string,
): Promise<{ downloadUrl: string }> {
  const { row, channel } = await contentOf(database, caller, id);
  await recordDownload(database, caller, row, channel, 'downloadUrl');
  return { downloadUrl: signedUrl(settings, origin, 'download', row, caller.actor.at) };
}

export interface Content {
  stream: Readable;
  size: number;
  contentType: string;
  name: string;
}

async function read(settings: FileSettings, row: FilesTable): Promise<Content> {
  const found = row.storage_key === null ? undefined : await settings.store.get(row.storage_key);
  if (!found) throw new ApiError(500, 'internal_error', 'The file’s content is missing from the store.');
  return { ...found, contentType: row.content_type ?? 'application/octet-stream', name: row.name };
}

/** A file's content for a caller who sees it, with fileDownloaded. */
export async function download(database: Database, caller: Caller, settings: FileSettings, id: string): Promise<Content> {
  const { row, channel } = await contentOf(database, caller, id);
  const content = await read(settings, row);
  await recordDownload(database, caller, row, channel, 'download');
  return content;
}

/** The signed URL's query, checked: a forged, altered or expired signature is a 403 (the same for a file gone since). */
function checkSignature(
  settings: FileSettings,
  action: SignedAction,
  id: string,
  query: { workspaceId: string; expires: string; signature: string },
  nowMs: number,
) {
  const valid = settings.signer.verify(action, query.workspaceId, id, Number(query.expires), query.signature, Math.floor(nowMs / 1000));
  if (!valid) throw errors.forbidden('This link is not valid, or has expired.');
}

/** The content behind a signed download URL. */
export async function signedDownload(
  database: Database,
  settings: FileSettings,
  id: string,
  query: { workspaceId: string; expires: string; signature: string },
  nowMs: number,
): Promise<Content> {
  checkSignature(settings, 'download', id, query, nowMs);
  const row = await repo.findFileOfWorkspace(database.db, query.workspaceId, id);
  if (row?.status !== 'completed') throw errors.notFound('File');
  return read(settings, row);
}

/**
 * Stores the content PUT to a signed upload URL: streamed into the store (whole or not at all, at most
 * FILES_MAX_BYTES), then the file completed. Uploading again replaces the content. The content type is
 * the request's, checked to be a media type.
 */
export async function signedUpload(
  database: Database,
  settings: FileSettings,
  id: string,
  query: { workspaceId: string; expires: string; signature: string },
  body: { stream: AsyncIterable<Buffer>; contentType: string },
  nowMs: number,
): Promise<FileObject> {
  checkSignature(settings, 'upload', id, query, nowMs);
  const row = await repo.findFileOfWorkspace(database.db, query.workspaceId, id);
  if (row?.object !== 'file') throw errors.notFound('File');
  const storageKey = `${row.workspace_id}/${row.id}`;
  const { size } = await settings.store.put(storageKey, body.stream, settings.maxBytes);
  const at = isoAt(nowMs);
  try {
    await unitOfWork(database, async (work) => {
      repo.completeUpload(work, row.workspace_id, row.id, { storageKey, size, contentType: body.contentType, at });
    });
  } catch (error) {
    await settings.store.remove(storageKey);
    throw error;
  }
  // Deleted while its content arrived: the content goes too.
  if (!(await repo.findFileOfWorkspace(database.db, query.workspaceId, id))) {
    await settings.store.remove(storageKey);
    throw errors.notFound('File');
  }
  return repo.toFile({ ...row, status: 'completed', storage_key: storageKey, size, content_type: body.contentType, updated_at: at });
}

/**
 * Removes content no file row names any more: its file went with its channel, client, company or workspace
 * (the database's cascades cannot reach the store), or a restore put back an older database. Content written
 * within `graceMs` is spared: an upload renames its content into place just before it commits the row.
 */
export async function removeOrphanContent(database: Database, store: FileStore, graceMs: number, nowMs = Date.now()): Promise<number> {
  let removed = 0;
  let batch: string[] = [];
  const check = async () => {
    const live = await repo.existingFileIds(
      database.db,
      batch.map((key) => key.slice(key.indexOf('/') + 1)),
    );
    for (const key of batch) {
      if (!live.has(key)) {
        await store.remove(key);
        removed++;
      }
    }
    batch = [];
  };
  for await (const { key, modifiedMs } of store.list()) {
    if (nowMs - modifiedMs < graceMs) continue;
    batch.push(key);
    if (batch.length === 500) await check();
  }
  await check();
  return removed;
}
