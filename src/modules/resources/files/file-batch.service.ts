// Batches of one channel's files, folders and links: deleting several at once, and a zip archive of several.
import { recordAudit } from '../../../audit/index.js';
import type { Database } from '../../../db/database.js';
import { unitOfWork } from '../../../db/unit-of-work.js';
import { type Caller, workspaceAccess } from '../../../lib/caller.js';
import { type FieldProblem, errors } from '../../../lib/errors.js';
import * as repo from './files.repository.js';
import { type FileBatchDeleted, MAX_BATCH_IDS } from './files.schemas.js';
import type { FileSettings } from './files.service.js';

/**
 * A batch's items (`stored`: those of `ids` found), each one the caller sees, all of one channel: else the whole batch
 * is refused, naming each item at fault.
 */
async function batchItems(
  db: Database['db'],
  caller: Caller,
  ids: readonly string[],
  stored: readonly repo.StoredFile[],
  field: string,
): Promise<{ items: repo.StoredFile[]; channel: repo.ChannelScope }> {
  const found = new Map(stored.map((one) => [one.file.id, one]));
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
      // Locked until the deletion commits: nothing is created or moved into a folder found empty (as deleteFile).
      const locked = await repo.findFilesForUpdate(work, caller.access, ids);
      const { items, channel } = await batchItems(work.db, caller, ids, locked, 'body.ids');
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
  const found = await repo.findFiles(database.db, caller.access, ids);
  const { items, channel } = await batchItems(database.db, caller, ids, found, 'query.ids');
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
