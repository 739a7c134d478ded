import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { recordAudit } from '../../audit/index.js';
import type { Database } from '../../db/database.js';
import type { Page, PageTokens } from '../../db/paging.js';
import { unitOfWork } from '../../db/unit-of-work.js';
import { type Access, type Caller, isClient, ownUserOf, workspaceAccess } from '../../lib/caller.js';
import { isoAt } from '../../lib/clock.js';
import { type FieldProblem, errors, orNotFound } from '../../lib/errors.js';
import * as channels from '../channels/index.js';
import type { FileChannel, FileChannelCreate, FileChannelListQuery } from '../channels/index.js';
import type { Area, FileStore } from './file-store.js';
import * as repo from './files.repository.js';
import {
  type ClientPermissionsIn,
  type FileBatchDeleted,
  type FileCreate,
  type FileCreateDeprecated,
  type FileListQuery,
  type FileObject,
  type FileUpdate,
  type FolderDeprecated,
  MAX_BATCH_IDS,
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
  /** Where signed URLs point: this service's public address (PORTAL_URL), never a Host a request named. */
  readonly baseUrl: string;
  readonly maxBytes: number;
  readonly urlTtlSeconds: number;
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
// Paths

/**
 * Control characters (C0, DEL, C1), the separator a file system could read as a path of its own, and the
 * bidirectional controls (LRM, RLM, ALM, the embeddings, overrides and isolates), which make a name show
 * as another (`invoice‮fdp.exe` read as `invoiceexe.pdf`).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters refused
const FORBIDDEN = /[\u0000-\u001f\u007f-\u009f\\]/;
const BIDI_CONTROLS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/**
 * A path as stored: in Unicode NFC (two spellings of one name are one path), its segments joined by `/`, one
 * leading or trailing `/` dropped. Each segment is a name of 1–255 characters, not `.` or `..`, without `\`,
 * control or bidirectional-control characters, and not only white space; so no path names anything outside
 * its channel (content is stored under the service's own keys anyway), nor shows as another.
 */
function normalizePath(raw: string, field: string, problems: FieldProblem[]): string[] | undefined {
  const trimmed = raw.normalize('NFC').replace(/^\//, '').replace(/\/$/, '');
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
    if (BIDI_CONTROLS.test(segment))
      return bad('may not hold bidirectional control characters (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069)');
    if (segment.trim() === '') return bad('has a segment of white space only');
    if ([...segment].length > MAX_NAME_LENGTH) return bad(`has a segment longer than ${MAX_NAME_LENGTH} characters`);
  }
  return segments;
}

/** The path of the folder holding this path; undefined at the channel's root. */
const parentPath = (path: string): string | undefined => {
  const slash = path.lastIndexOf('/');
  return slash === -1 ? undefined : path.slice(0, slash);
};

// ---------------------------------------------------------------------------------------------------------
// File objects

/** Who a change is recorded as on the object: a person's own user (lib/caller.ts; a session, or signed in); a key: nobody. */
function modifierOf(caller: Caller): FileObject['lastModifiedBy'] {
  const own = ownUserOf(caller);
  return own && { id: own.id, object: own.type };
}

function signedUrl(settings: FileSettings, action: SignedAction, workspaceId: string, id: string, nowMs: number): string {
  const expires = Math.floor(nowMs / 1000) + settings.urlTtlSeconds;
  const route = action === 'download' ? 'downloads' : 'uploads';
  return `${settings.baseUrl}/files/${route}/${id}?${settings.signer.sign(action, workspaceId, id, expires)}`;
}

/**
 * A file object as a single answer: a file with content gets its downloadUrl; one without, its uploadUrl
 * when the caller may write where it is (`mayWrite`), and nothing otherwise.
 */
function withUrls(settings: FileSettings, caller: Caller, file: FileObject, mayWrite: boolean): FileObject {
  if (file.object !== 'file') return file;
  const { workspaceId } = caller.access;
  if (file.status === 'completed') return { ...file, downloadUrl: signedUrl(settings, 'download', workspaceId, file.id, caller.actor.at) };
  if (!mayWrite) return file;
  const action = isClient(caller.principal) ? 'clientUpload' : 'upload';
  return { ...file, uploadUrl: signedUrl(settings, action, workspaceId, file.id, caller.actor.at) };
}

const subjectOf = (file: FileObject, channel: repo.ChannelScope, data: object = file) => ({
  object: file.object,
  id: file.id,
  data,
  companyId: channel.companyId,
});

/** The channel named by a body's field, if the caller sees it; otherwise the field's problem. */
async function channelFor(
  database: Database,
  caller: Caller,
  id: string,
  field: string,
  problems: FieldProblem[],
): Promise<repo.ChannelScope | undefined> {
  const channel = await repo.findChannelScope(database.db, caller.access, id);
  if (!channel) problems.push({ path: field, message: 'is not a file channel of this workspace' });
  return channel;
}

/**
 * Whether the caller may write where an object is or goes: staff anywhere in the channels they see; a
 * client (a session, or signed in) only where clients may write (the folder holding it, or the channel's root).
 */
function mayWrite(caller: Caller, channel: repo.ChannelScope, parent: FileObject | undefined): boolean {
  return !isClient(caller.principal) || clientsMayWrite(channel, parent);
}

/** Whether clients may write in the folder (or, without one, the channel's root). */
function clientsMayWrite(channel: repo.ChannelScope, parent: FileObject | undefined): boolean {
  return parent ? parent.clientPermissions === 'read-write' : channel.rootClientPermissions === 'read_write';
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

/** Checks a new file object (its channel, path, parent folder, link) and stores it with its event, or throws one 400. */
async function createObject(database: Database, caller: Caller, input: NewObject): Promise<FileObject> {
  const problems: FieldProblem[] = [];
  const segments = normalizePath(input.path, input.pathField, problems);
  const channel = await channelFor(database, caller, input.channelId, input.channelField, problems);
  if (input.type === 'link') {
    if (input.linkUrl === undefined) problems.push({ path: 'body.linkUrl', message: 'is required for a link' });
    else if (!isHttpUrl(input.linkUrl)) problems.push({ path: 'body.linkUrl', message: 'must be an http(s) URL' });
  } else if (input.linkUrl !== undefined) problems.push({ path: 'body.linkUrl', message: 'is only for links' });
  if (input.type !== 'folder' && input.clientPermissions !== undefined)
    problems.push({ path: 'body.clientPermissions', message: 'is only for folders' });
  let parent: repo.StoredFile | undefined;
  if (segments && channel && segments.length > 1) {
    const folderPath = segments.slice(0, -1).join('/');
    parent = await repo.findFolder(database.db, caller.access, channel.id, folderPath);
    if (!parent) problems.push({ path: input.pathField, message: `names a folder that does not exist in this channel: ${folderPath}` });
  }
  if (problems.length > 0 || !segments || !channel) throw errors.invalidFields(problems);
  if (!mayWrite(caller, channel, parent?.file)) throw errors.forbidden('Clients may only read in this folder.');
  const at = isoAt(caller.actor.at);
  const modifier = modifierOf(caller);
  const file: FileObject = {
    id: randomUUID(),
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
  await unitOfWork(database, async (work) => {
    repo.insertFile(work, caller.access, { file, storageKey: null });
    recordAudit(work, caller.actor, {
      eventType: `${input.type}Created`,
      description: `${input.type[0].toUpperCase()}${input.type.slice(1)} created`,
      context: { channelId: channel.id, fileId: file.id, path: file.path },
      subject: subjectOf(file, channel),
    });
  });
  return file;
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
async function visibleFile(
  database: Database,
  caller: Caller,
  id: string,
): Promise<{ stored: repo.StoredFile; channel: repo.ChannelScope }> {
  const stored = orNotFound(await repo.findFile(database.db, caller.access, id), 'File');
  const channel = orNotFound(await repo.findChannelScope(database.db, caller.access, stored.file.channelId), 'File');
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
  const channel = orNotFound(await repo.findChannelScope(database.db, caller.access, query.channelId), 'File channel');
  let folderPath: string | undefined;
  if (query.path !== undefined && query.path.replace(/^\/|\/$/g, '') !== '') {
    const problems: FieldProblem[] = [];
    folderPath = normalizePath(query.path, 'querystring.path', problems)?.join('/');
    if (problems.length > 0) throw errors.invalidFields(problems);
  }
  return repo.listFiles(database.db, caller.access, channel.id, folderPath, { limit: query.limit, nextToken: query.nextToken }, tokens);
}

/**
 * Deletes a file, folder or link (a folder only when empty: "Folder is not empty", 400, so a delete never
 * reaches anything but the one object), with its event; a file's content is removed from the store once
 * the deletion committed.
 */
export async function deleteFile(
  database: Database,
  caller: Caller,
  settings: FileSettings,
  id: string,
): Promise<{ id: string; object: FileObject['object']; deleted: true }> {
  const { stored, channel } = await visibleFile(database, caller, id);
  const { file } = stored;
  if (file.object === 'folder' && (await repo.hasContents(database.db, caller.access, channel.id, file.path))) {
    throw errors.badRequest('Folder is not empty');
  }
  await unitOfWork(database, async (work) => {
    repo.deleteFile(work, caller.access, file.id);
    recordAudit(work, caller.actor, {
      eventType: `${file.object}Deleted`,
      description: `${file.object[0].toUpperCase()}${file.object.slice(1)} deleted`,
      context: { channelId: channel.id, fileId: file.id, path: file.path },
      subject: subjectOf(file, channel),
    });
  });
  if (stored.storageKey !== null) await settings.store.remove(stored.storageKey);
  return { id: file.id, object: file.object, deleted: true };
}

// ---------------------------------------------------------------------------------------------------------
// Rename, move, batches

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
      const stored = orNotFound(await repo.findFile(work.db, access, id), 'File');
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
        if (!(await repo.findFolder(work.db, access, channel.id, folderPath)))
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

/** A batch's items, each one the caller sees, all of one channel: else the whole batch is refused, naming each item at fault. */
async function batchItems(
  db: Database['db'],
  caller: Caller,
  ids: readonly string[],
  field: string,
): Promise<{ items: repo.StoredFile[]; channel: repo.ChannelScope }> {
  const found = new Map((await repo.findFiles(db, caller.access, ids)).map((stored) => [stored.file.id, stored]));
  const channels = new Map<string, repo.ChannelScope | undefined>();
  for (const channelId of new Set([...found.values()].map((stored) => stored.file.channelId))) {
    channels.set(channelId, await repo.findChannelScope(db, caller.access, channelId));
  }
  const unseen = ids.flatMap((id, index) => {
    const stored = found.get(id);
    return stored && channels.get(stored.file.channelId)
      ? []
      : [{ path: `${field}.${index}`, message: 'is not a file, folder or link you can see' }];
  });
  if (unseen.length > 0) {
    throw errors.notFoundBecause(
      unseen.length === 1 ? `${unseen[0].path} ${unseen[0].message}` : `${unseen.length} items not found`,
      unseen,
    );
  }
  const items = ids.map((id) => found.get(id) as repo.StoredFile);
  const channelId = items[0].file.channelId;
  const elsewhere = items.flatMap((stored, index) =>
    stored.file.channelId === channelId
      ? []
      : [{ path: `${field}.${index}`, message: `is in another channel than ${field}.0: a batch is of one channel` }],
  );
  if (elsewhere.length > 0) throw errors.invalidFields(elsewhere);
  return { items, channel: channels.get(channelId) as repo.ChannelScope };
}

/**
 * Deletes several files, folders and links of one channel at once, all or none, with one fileBatchDeleted. Every
 * item must be one the caller sees (else a 404 naming each item's index, nothing deleted); as a single delete, a
 * folder goes only when everything inside it goes too (in `ids`), else a 400 "Folder is not empty" naming it:
 * a delete reaches only what was named. Content leaves the store once the deletion committed.
 */
export async function deleteFiles(
  database: Database,
  caller: Caller,
  settings: FileSettings,
  ids: readonly string[],
): Promise<FileBatchDeleted> {
  const items = await unitOfWork(
    database,
    async (work) => {
      const { items, channel } = await batchItems(work.db, caller, ids, 'body.ids');
      const named = new Set(ids);
      const problems: FieldProblem[] = [];
      for (const [index, { file }] of items.entries()) {
        if (file.object !== 'folder') continue;
        // Everything inside, seen by the caller or not (an unrestricted read): the rule is the single delete's.
        const inside = await repo.findContents(
          work.db,
          workspaceAccess(caller.access.workspaceId),
          channel.id,
          file.path,
          MAX_BATCH_IDS + 1,
        );
        if (inside.some((stored) => !named.has(stored.file.id)))
          problems.push({ path: `body.ids.${index}`, message: 'is a folder that is not empty: what is inside it must be in ids too' });
      }
      if (problems.length > 0)
        throw errors.badRequest(problems.length === 1 ? `Folder is not empty: ${problems[0].path}` : 'Folders are not empty', problems);
      repo.deleteFiles(work, caller.access, ids);
      recordAudit(work, caller.actor, {
        eventType: 'fileBatchDeleted',
        description: `${items.length} files, folders and links deleted`,
        context: {
          channelId: channel.id,
          items: items.map(({ file }) => ({ id: file.id, object: file.object, path: file.path })),
        },
        subject: { object: 'fileChannel', id: channel.id, data: { deleted: items.length }, companyId: channel.companyId },
      });
      return items;
    },
    { transaction: true },
  );
  for (const { storageKey } of items) if (storageKey !== null) await settings.store.remove(storageKey);
  return { data: items.map(({ file }) => ({ id: file.id, object: file.object, deleted: true as const })) };
}

/** At most this many entries (files and folders) in one archive. */
const MAX_ARCHIVE_ENTRIES = 10_000;

/** An archive's entry: a folder (its path), or a file with content (its path, store key and last change). */
export type ArchiveEntry = { path: string; folder: true; at: string } | { path: string; folder: false; at: string; storageKey: string };

/** The `ids` of an archive's query: comma-separated, 1–MAX_BATCH_IDS distinct ids (else a 400 naming query.ids). */
function archiveIds(raw: string): string[] {
  const ids = raw.split(',');
  const bad = (message: string) => errors.invalidFields([{ path: 'query.ids', message }]);
  if (ids.some((id) => id === '')) throw bad('must be ids separated by commas, none empty');
  if (ids.length > MAX_BATCH_IDS) throw bad(`may name at most ${MAX_BATCH_IDS} ids`);
  if (new Set(ids).size !== ids.length) throw bad('may name each id once');
  return ids;
}

/**
 * What a zip archive of several files and folders of one channel holds, with fileBatchDownloaded: each file
 * named, and each folder named with everything inside it, at their paths in the channel (folders as entries of
 * their own, so empty ones are kept). Every item must be one the caller sees (else a 404 naming its index); a
 * link or a pending file named is a 400 (neither has content); inside a folder, links and pending files are
 * left out. At most MAX_ARCHIVE_ENTRIES entries (400).
 */
export async function archive(database: Database, caller: Caller, rawIds: string): Promise<ArchiveEntry[]> {
  const ids = archiveIds(rawIds);
  const { items, channel } = await batchItems(database.db, caller, ids, 'query.ids');
  const problems: FieldProblem[] = [];
  for (const [index, { file }] of items.entries()) {
    if (file.object === 'link') problems.push({ path: `query.ids.${index}`, message: 'is a link: it has no content to download' });
    else if (file.object === 'file' && file.status !== 'completed')
      problems.push({ path: `query.ids.${index}`, message: 'is a file without content yet' });
  }
  if (problems.length > 0) throw errors.invalidFields(problems);
  const all = new Map<string, repo.StoredFile>();
  for (const stored of items) {
    all.set(stored.file.id, stored);
    if (stored.file.object !== 'folder') continue;
    for (const inside of await repo.findContents(database.db, caller.access, channel.id, stored.file.path, MAX_ARCHIVE_ENTRIES + 1))
      all.set(inside.file.id, inside);
    if (all.size > MAX_ARCHIVE_ENTRIES)
      throw errors.invalidFields([{ path: 'query.ids', message: `name more than ${MAX_ARCHIVE_ENTRIES} files and folders` }]);
  }
  const entries: ArchiveEntry[] = [];
  for (const { file, storageKey } of all.values()) {
    if (file.object === 'folder') entries.push({ path: file.path, folder: true, at: file.updatedAt });
    else if (file.object === 'file' && file.status === 'completed' && storageKey !== null)
      entries.push({ path: file.path, folder: false, at: file.updatedAt, storageKey });
  }
  entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  await unitOfWork(database, async (work) => {
    recordAudit(work, caller.actor, {
      eventType: 'fileBatchDownloaded',
      description: 'Files downloaded as a zip archive',
      context: { channelId: channel.id, ids, files: entries.filter((entry) => !entry.folder).length },
      subject: { object: 'fileChannel', id: channel.id, data: { ids }, companyId: channel.companyId },
    });
  });
  return entries;
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

/** A file's content for the caller who sees it; a folder, a link or a file without content is a 400. */
async function contentOf(database: Database, caller: Caller, id: string): Promise<{ stored: repo.StoredFile; channel: repo.ChannelScope }> {
  const found = await visibleFile(database, caller, id);
  const { file } = found.stored;
  if (file.object !== 'file') throw errors.badRequest(`A ${file.object} has no content to download.`);
  if (file.status !== 'completed') throw errors.badRequest('This file has no content yet: PUT it to the uploadUrl first.');
  return found;
}

function recordDownload(database: Database, caller: Caller, file: FileObject, channel: repo.ChannelScope, how: string) {
  return unitOfWork(database, async (work) => {
    recordAudit(work, caller.actor, {
      eventType: 'fileDownloaded',
      description: 'File downloaded',
      context: { channelId: channel.id, fileId: file.id, path: file.path, via: how },
      subject: subjectOf(file, channel),
    });
  });
}

/** A signed download URL for a file the caller sees (fileDownloaded: the URL is how it is downloaded). */
export async function downloadUrl(
  database: Database,
  caller: Caller,
  settings: FileSettings,
  id: string,
): Promise<{ downloadUrl: string }> {
  const { stored, channel } = await contentOf(database, caller, id);
  await recordDownload(database, caller, stored.file, channel, 'downloadUrl');
  return { downloadUrl: signedUrl(settings, 'download', caller.access.workspaceId, stored.file.id, caller.actor.at) };
}

export interface Content {
  stream: Readable;
  size: number;
  contentType: string;
  name: string;
}

async function read(settings: FileSettings, { file, storageKey }: repo.StoredFile): Promise<Content> {
  const found = storageKey === null ? undefined : await settings.store.get(storageKey);
  if (!found) throw errors.internal('The file’s content is missing from the store.');
  return { ...found, contentType: file.contentType ?? 'application/octet-stream', name: file.name };
}

/** A file's content for a caller who sees it, with fileDownloaded. */
export async function download(database: Database, caller: Caller, settings: FileSettings, id: string): Promise<Content> {
  const { stored, channel } = await contentOf(database, caller, id);
  const content = await read(settings, stored);
  await recordDownload(database, caller, stored.file, channel, 'download');
  return content;
}

/** A signed URL's query, as its route takes it. */
interface SignedQuery {
  workspaceId: string;
  expires: string;
  signature: string;
}

/** The signed URL's query, checked: a forged, altered or expired signature is a 403 (the same for a file gone since). */
/** The action the signed URL was made for, of those given; a 403 when it is none of them (forged, altered, expired). */
function checkSignature(settings: FileSettings, actions: SignedAction[], id: string, query: SignedQuery, nowMs: number): SignedAction {
  const now = Math.floor(nowMs / 1000);
  const action = actions.find((one) => settings.signer.verify(one, query.workspaceId, id, query.expires, query.signature, now));
  if (action === undefined) throw errors.forbidden('This link is not valid, or has expired.');
  return action;
}

/** Whether clients may still write where the file is now (its folder, or the channel's root), at the time of its upload. */
async function clientsMayWriteAt(database: Database, access: Access, file: FileObject): Promise<boolean> {
  const channel = orNotFound(await repo.findChannelScope(database.db, access, file.channelId), 'File');
  const folderPath = parentPath(file.path);
  const parent = folderPath === undefined ? undefined : await repo.findFolder(database.db, access, channel.id, folderPath);
  return clientsMayWrite(channel, parent?.file);
}

/** The content behind a signed download URL. */
export async function signedDownload(
  database: Database,
  settings: FileSettings,
  id: string,
  query: SignedQuery,
  nowMs: number,
): Promise<Content> {
  checkSignature(settings, ['download'], id, query, nowMs);
  const stored = await repo.findFile(database.db, workspaceAccess(query.workspaceId), id);
  if (stored?.file.status !== 'completed') throw errors.notFound('File');
  return read(settings, stored);
}

const UPLOADED_ONCE =
  'This file’s content has been uploaded already: a file’s content is set once. To replace it, create a new file (and delete this one).';

/**
 * Stores the content PUT to a signed upload URL, once: the file is claimed for this upload (a second PUT,
 * while it runs or after it, is a 409), its content streamed into the store (whole or not at all, at most
 * FILES_MAX_BYTES), then the file completed; an upload that fails gives its claim back. The content type is
 * the request's, checked to be a media type.
 */
export async function signedUpload(
  database: Database,
  settings: FileSettings,
  id: string,
  query: SignedQuery,
  body: { stream: AsyncIterable<Buffer>; contentType: string },
  nowMs: number,
): Promise<FileObject> {
  const action = checkSignature(settings, ['upload', 'clientUpload'], id, query, nowMs);
  const access = workspaceAccess(query.workspaceId);
  const found = await repo.findFile(database.db, access, id);
  if (found?.file.object !== 'file') throw errors.notFound('File');
  if (found.file.status === 'completed') throw errors.conflict(UPLOADED_ONCE);
  // A client's URL outlives its folder's permissions: they are checked now, not when the URL was handed out.
  if (action === 'clientUpload' && !(await clientsMayWriteAt(database, access, found.file)))
    throw errors.forbidden('Clients may only read in this folder.');
  const storageKey = `${query.workspaceId}/${id}`;
  const claimedAt = isoAt(nowMs);
  const claimed = await unitOfWork(database, async (work) =>
    repo.claimUpload(work, access, id, { storageKey, at: claimedAt, staleBefore: isoAt(nowMs - settings.uploadGraceMs) }),
  );
  if (!claimed()) {
    const now = await repo.findFile(database.db, access, id);
    if (!now) throw errors.notFound('File');
    throw errors.conflict(now.file.status === 'completed' ? UPLOADED_ONCE : 'An upload of this file’s content is under way.');
  }
  let size: number;
  try {
    ({ size } = await settings.store.put(storageKey, body.stream, settings.maxBytes));
  } catch (error) {
    await unitOfWork(database, async (work) => repo.releaseUpload(work, access, id, claimedAt));
    throw error;
  }
  const completed = await unitOfWork(database, async (work) =>
    repo.completeUpload(work, access, id, { claimedAt, size, contentType: body.contentType, at: claimedAt }),
  );
  if (!completed()) {
    // Deleted while its content arrived: the content goes too.
    if (!(await repo.findFile(database.db, access, id))) {
      await settings.store.remove(storageKey);
      throw errors.notFound('File');
    }
    throw errors.conflict('An upload of this file’s content is under way.');
  }
  return { ...found.file, status: 'completed', size, contentType: body.contentType, updatedAt: claimedAt };
}

/** What one sweep of the store did: each count of objects. */
export interface ContentSweepCounts {
  /** Copied from the legacy layout under the database's id: rows of this database name them. */
  adopted: number;
  /** Their legacy copy removed, a window after the database got its id (old processes of it gone). */
  legacyRemoved: number;
  /** Moved to quarantine: no row names them (their file went with its channel, client, company or workspace). */
  quarantined: number;
  /** Moved back out of quarantine: a row names them again (a restored database). */
  restored: number;
  /** Deleted from quarantine after `quarantineMs` there. */
  deleted: number;
}

/**
 * Keeps the store's content to what this database's rows name, never reaching past the database's own
 * namespace except to copy in the legacy content its rows name. Content written within `graceMs` is spared (an
 * upload renames its content into place just before it commits the row). Orphans are not deleted at once but
 * quarantined, and deleted only when a sweep finds them there `quarantineMs` later and still unnamed: a mistake
 * (a database restored from a backup) is put right by the sweep itself, or by hand meanwhile.
 */
export async function sweepContent(
  database: Database,
  store: FileStore,
  options: { graceMs: number; quarantineMs: number; namespaceSinceMs: number },
  nowMs = Date.now(),
): Promise<ContentSweepCounts> {
  const counts: ContentSweepCounts = { adopted: 0, legacyRemoved: 0, quarantined: 0, restored: 0, deleted: 0 };
  /** Runs `each` over an area's keys in batches of 500, told whether a row of this database names the key. */
  const inBatches = async (area: Area, each: (key: string, named: boolean, modifiedMs: number) => Promise<void>) => {
    let batch: { key: string; modifiedMs: number }[] = [];
    const check = async () => {
      const named = await repo.existingFileIds(
        database.db,
        batch.map(({ key }) => key.slice(key.indexOf('/') + 1)),
      );
      for (const { key, modifiedMs } of batch) await each(key, named.has(key), modifiedMs);
      batch = [];
    };
    for await (const object of store.list(area)) {
      batch.push(object);
      if (batch.length === 500) await check();
    }
    await check();
  };
  // Legacy content is another database's unless a row of this one names it (keys are random ids): only then
  // copied in; its legacy copy stays while processes of the release before may still read it there.
  const legacyDone = nowMs - options.namespaceSinceMs >= options.quarantineMs;
  await inBatches('legacy', async (key, named) => {
    if (!named) return;
    if (!(await store.has(key, 'live')) && (await store.copy(key, 'legacy', 'live'))) counts.adopted++;
    if (legacyDone && (await store.has(key, 'live'))) {
      await store.remove(key, ['legacy']);
      counts.legacyRemoved++;
    }
  });
  await inBatches('quarantine', async (key, named, quarantinedMs) => {
    if (named) {
      if (await store.has(key, 'live')) await store.remove(key, ['quarantine']);
      else if (await store.move(key, 'quarantine', 'live')) counts.restored++;
    } else if (nowMs - quarantinedMs >= options.quarantineMs) {
      await store.remove(key, ['quarantine']);
      counts.deleted++;
    }
  });
  await inBatches('live', async (key, named, modifiedMs) => {
    if (named || nowMs - modifiedMs < options.graceMs) return;
    if (await store.move(key, 'live', 'quarantine')) counts.quarantined++;
  });
  return counts;
}
