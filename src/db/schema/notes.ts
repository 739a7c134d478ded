/** Notes on a client or a company (modules/resources/notes). */

export const NOTE_ENTITY_TYPES = ['client', 'company'] as const;
type NoteEntityType = (typeof NOTE_ENTITY_TYPES)[number];

export interface NotesTable {
  id: string;
  workspace_id: string;
  entity_type: NoteEntityType;
  /** Exactly one of client_id and company_id, as entity_type says: each goes with its client or company. */
  client_id: string | null;
  company_id: string | null;
  title: string;
  /** HTML as given (not sanitized); null when none was given */
  content: string | null;
  creator_id: string;
  created_at: string;
  updated_at: string;
}

export interface NotesTables {
  notes: NotesTable;
}
