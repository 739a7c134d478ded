import { type ExpressionBuilder, type Kysely, sql } from 'kysely';
import { type Page, type PageTokens, fetchPage, pageScope } from '../../../db/paging.js';
import { nonEmpty, splitIds } from '../../../db/rows.js';
import type { DB, NotesTable } from '../../../db/schema.js';
import type { UnitOfWork } from '../../../db/unit-of-work.js';
import type { Access } from '../../../lib/caller.js';
import type { Note, NoteListQuery } from './notes.schemas.js';

function toNote(row: NotesTable): Note {
  const note: Note = {
    id: row.id,
    object: 'note',
    entityType: row.entity_type,
    entityId: (row.entity_type === 'client' ? row.client_id : row.company_id) as string,
    title: row.title,
    creatorId: row.creator_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
  if (row.content !== null) note.content = row.content;
  return note;
}

/**
 * The notes an access sees. Notes are the staff's: a client session none (its routes answer it 404 before this);
 * a principal limited to some companies the notes on those companies and on their clients; everyone else the workspace's.
 */
function visibleTo(access: Access) {
  return (eb: ExpressionBuilder<DB, 'notes'>) => {
    const inWorkspace = eb('notes.workspace_id', '=', access.workspaceId);
    if (access.clientId) return eb.and([inWorkspace, sql<boolean>`1 = 0`]);
    if (access.companyIds) {
      const companies = nonEmpty(access.companyIds);
      return eb.and([
        inWorkspace,
        eb.or([
          eb('notes.company_id', 'in', companies),
          eb(
            'notes.client_id',
            'in',
            eb
              .selectFrom('client_companies as cc')
              .select('cc.client_id')
              .where('cc.workspace_id', '=', access.workspaceId)
              .where('cc.company_id', 'in', companies),
          ),
        ]),
      ]);
    }
    return inWorkspace;
  };
}

/** A page, newest first; `entityId` reads the client's or the company's index, `entityType` alone its own. */
export function listNotes(db: Kysely<DB>, access: Access, query: NoteListQuery, tokens: PageTokens): Promise<Page<Note>> {
  const { entityType, entityId } = query;
  let q = db.selectFrom('notes').selectAll().where(visibleTo(access));
  if (entityId !== undefined) q = q.where(entityType === 'client' ? 'client_id' : 'company_id', '=', entityId);
  else if (entityType !== undefined) q = q.where('entity_type', '=', entityType);
  return fetchPage(q, 'notes', query, tokens, pageScope(access, 'notes', { entityType, entityId }), toNote);
}

export async function findNote(db: Kysely<DB>, access: Access, id: string): Promise<Note | undefined> {
  const row = await db.selectFrom('notes').selectAll().where(visibleTo(access)).where('notes.id', '=', id).executeTakeFirst();
  return row && toNote(row);
}

/** The company a note concerns, for its audit entries: the company it is on, or its client's primary company. */
export async function companyOfNote(db: Kysely<DB>, access: Access, note: Note): Promise<string | null> {
  if (note.entityType === 'company') return note.entityId;
  const client = await db
    .selectFrom('clients')
    .select('company_ids')
    .where('workspace_id', '=', access.workspaceId)
    .where('id', '=', note.entityId)
    .executeTakeFirst();
  return splitIds(client?.company_ids ?? '')[0] ?? null;
}

export function insertNote(work: UnitOfWork, access: Access, note: Note): void {
  work.write(
    work.db.insertInto('notes').values({
      id: note.id,
      workspace_id: access.workspaceId,
      entity_type: note.entityType,
      client_id: note.entityType === 'client' ? note.entityId : null,
      company_id: note.entityType === 'company' ? note.entityId : null,
      title: note.title,
      content: note.content ?? null,
      creator_id: note.creatorId,
      created_at: note.createdAt,
      updated_at: note.updatedAt,
    }),
  );
}

/** Writes the changeable fields (title, content) of a note the access sees. */
export function updateNote(work: UnitOfWork, access: Access, note: Note): void {
  work.write(
    work.db
      .updateTable('notes')
      .set({ title: note.title, content: note.content ?? null, updated_at: note.updatedAt })
      .where(visibleTo(access))
      .where('notes.id', '=', note.id),
  );
}

export function deleteNote(work: UnitOfWork, access: Access, id: string): void {
  work.write(work.db.deleteFrom('notes').where(visibleTo(access)).where('notes.id', '=', id));
}
