import { type Static, Type } from 'typebox';
import { NOTE_ENTITY_TYPES } from '../../../db/schema.js';
import { Id, Line, PageQuery, RefId, Text, Timestamp } from '../../../lib/schemas.js';

export const NOTE_TITLE_MAX = 255;
export const NOTE_CONTENT_MAX = 100_000;

const EntityType = Type.Enum([...NOTE_ENTITY_TYPES], { description: 'client or company' });
const Title = Line({ maxLength: NOTE_TITLE_MAX, description: `1–${NOTE_TITLE_MAX} characters, no formatting` });
const Content = Text({
  maxLength: NOTE_CONTENT_MAX,
  description:
    `HTML, at most ${NOTE_CONTENT_MAX} characters, stored and answered exactly as given: this service does not sanitize it, ` +
    'so whoever renders it must escape or sanitize it',
});

export const NoteCreate = Type.Object(
  {
    entityType: EntityType,
    entityId: RefId('the client or company (as entityType says) the note is on'),
    title: Title,
    content: Type.Optional(Content),
  },
  { additionalProperties: false, title: 'NoteCreate' },
);
export type NoteCreate = Static<typeof NoteCreate>;

export const NoteUpdate = Type.Object(
  { title: Type.Optional(Title), content: Type.Optional(Content) },
  { additionalProperties: false, title: 'NoteUpdate' },
);
export type NoteUpdate = Static<typeof NoteUpdate>;

export const Note = Type.Object(
  {
    id: Id,
    object: Type.Literal('note'),
    entityType: EntityType,
    entityId: Type.String(),
    title: Type.String(),
    content: Type.Optional(
      Type.String({ description: 'HTML as given, not sanitized by this service: escape or sanitize it to render it' }),
    ),
    creatorId: Type.String({ description: 'the internal user who wrote it (a session), else the API key’s id' }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { additionalProperties: false, title: 'Note' },
);
export type Note = Static<typeof Note>;

export const NoteListQuery = Type.Object(
  {
    ...PageQuery,
    entityType: Type.Optional(EntityType),
    entityId: Type.Optional(RefId('the notes of this client or company: entityType is then required')),
  },
  { additionalProperties: false },
);
export type NoteListQuery = Static<typeof NoteListQuery>;
