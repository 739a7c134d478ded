// A file's content: its download (directly or by signed URL), its signed download URL, and the upload to its signed upload URL.
import type { Readable } from 'node:stream';
import { recordAudit } from '../../../audit/index.js';
import type { Database } from '../../../db/database.js';
import { unitOfWork } from '../../../db/unit-of-work.js';
import { type Caller, workspaceAccess } from '../../../lib/caller.js';
import { isoAt } from '../../../lib/clock.js';
import { errors } from '../../../lib/errors.js';
import { clientsMayWriteAt } from './file-permissions.js';
import * as repo from './files.repository.js';
import type { FileObject } from './files.schemas.js';
import { type FileSettings, subjectOf, visibleFile } from './files.service.js';
import { type SignedAction, signedUrl } from './signed-urls.js';

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
  /** The bytes, or a stream of them (as the store gave them). */
  body: Readable | Buffer;
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

/** The action the signed URL was made for, of those given; a 403 when it is none of them (forged, altered, expired). */
function checkSignature(settings: FileSettings, actions: SignedAction[], id: string, query: SignedQuery, nowMs: number): SignedAction {
  const now = Math.floor(nowMs / 1000);
  const action = actions.find((one) => settings.signer.verify(one, query.workspaceId, id, query.expires, query.signature, now));
  if (action === undefined) throw errors.forbidden('This link is not valid, or has expired.');
  return action;
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
