import { recordAudit } from '../../../audit/index.js';
import type { Database } from '../../../db/database.js';
import type { Page, PageTokens } from '../../../db/paging.js';
import { type UnitOfWork, unitOfWork } from '../../../db/unit-of-work.js';
import type { Caller } from '../../../lib/caller.js';
import { isoAt } from '../../../lib/clock.js';
import { errors, orNotFound } from '../../../lib/errors.js';
import { newRowId } from '../../../lib/row-id.js';
import { existingCompanyIds, findClient } from '../directory/index.js';
import * as repo from './notes.repository.js';
import type { Note, NoteCreate, NoteListQuery, NoteUpdate } from './notes.schemas.js';

/** GET /v1/notes: `entityId` names a client or a company only with `entityType` (the SDK's rule). */
export function listNotes(database: Database, caller: Caller, query: NoteListQuery, tokens: PageTokens): Promise<Page<Note>> {
  if (query.entityId !== undefined && query.entityType === undefined)
    throw errors.invalidField('query.entityType', 'is required with entityId: client or company');
  return repo.listNotes(database.db, caller.access, query, tokens);
}

export async function getNote(database: Database, caller: Caller, id: string): Promise<Note> {
  return orNotFound(await repo.findNote(database.db, caller.access, id), 'Note');
}

function recordNoteEvent(
  work: UnitOfWork,
  caller: Caller,
  note: Note,
  companyId: string | null,
  eventType: 'noteCreated' | 'noteUpdated' | 'noteDeleted',
  previousAttributes?: Record<string, unknown>,
) {
  const verb = { noteCreated: 'created', noteUpdated: 'updated', noteDeleted: 'deleted' }[eventType];
  recordAudit(work, caller.actor, {
    eventType,
    description: `Note "${note.title}" on ${note.entityType} ${note.entityId} ${verb}`,
    context: { noteId: note.id, entityType: note.entityType, entityId: note.entityId },
    ...(previousAttributes ? { previousAttributes } : {}),
    subject: { object: 'note', id: note.id, data: note, companyId },
  });
}

/** A note on a client or a company the caller sees (noteCreated); content stored as given. */
export async function createNote(database: Database, caller: Caller, input: NoteCreate): Promise<Note> {
  const { entityId } = input;
  let companyId: string | null;
  if (input.entityType === 'client') {
    const client = await findClient(database.db, caller.access, entityId);
    if (!client) throw errors.invalidField('body.entityId', 'is not a client of this workspace');
    companyId = client.companyId;
  } else {
    if ((await existingCompanyIds(database.db, caller.access, [entityId])).size === 0)
      throw errors.invalidField('body.entityId', 'is not a company of this workspace');
    companyId = entityId;
  }
  const at = isoAt(caller.actor.at);
  const note: Note = {
    id: newRowId(),
    object: 'note',
    entityType: input.entityType,
    entityId,
    title: input.title,
    ...(input.content === undefined ? {} : { content: input.content }),
    // The session's own user (a note has no author field to name another), else the API key.
    creatorId: caller.actor.actorId ?? caller.actor.apiKeyRef ?? 'system',
    createdAt: at,
    updatedAt: at,
  };
  await unitOfWork(database, async (work) => {
    repo.insertNote(work, caller.access, note);
    recordNoteEvent(work, caller, note, companyId, 'noteCreated');
  });
  return note;
}

/** Changes the title or content given (noteUpdated with their previous values; nothing changed: no event). */
export async function updateNote(database: Database, caller: Caller, id: string, input: NoteUpdate): Promise<Note> {
  return unitOfWork(
    database,
    async (work) => {
      const previous = orNotFound(await repo.findNote(work.db, caller.access, id), 'Note');
      const previousAttributes: Record<string, unknown> = {};
      if (input.title !== undefined && input.title !== previous.title) previousAttributes.title = previous.title;
      if (input.content !== undefined && input.content !== previous.content) previousAttributes.content = previous.content ?? null;
      if (Object.keys(previousAttributes).length === 0) return previous;
      const note: Note = {
        ...previous,
        title: input.title ?? previous.title,
        ...(input.content === undefined ? {} : { content: input.content }),
        updatedAt: isoAt(caller.actor.at),
      };
      repo.updateNote(work, caller.access, note);
      recordNoteEvent(work, caller, note, await repo.companyOfNote(work.db, caller.access, note), 'noteUpdated', previousAttributes);
      return note;
    },
    { transaction: true },
  );
}

/** Deletes a note for good (noteDeleted, with its last state). */
export async function deleteNote(database: Database, caller: Caller, id: string) {
  return unitOfWork(
    database,
    async (work) => {
      const note = orNotFound(await repo.findNote(work.db, caller.access, id), 'Note');
      repo.deleteNote(work, caller.access, note.id);
      recordNoteEvent(work, caller, note, await repo.companyOfNote(work.db, caller.access, note), 'noteDeleted');
      return { id: note.id, object: 'note', deleted: true as const };
    },
    { transaction: true },
  );
}
