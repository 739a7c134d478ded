import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { RoutePolicy } from '../../../lib/policy.js';
import { DELETE_ERRORS, DeletedBody, IdParams, Page, READ_ERRORS, WRITE_ERRORS } from '../../../lib/schemas.js';
import { NOTE_CONTENT_MAX, NOTE_TITLE_MAX, Note, NoteCreate, NoteListQuery, NoteUpdate } from './notes.schemas.js';
import * as service from './notes.service.js';

/** Notes are the staff's: a client session is answered as if they were absent (404), as for internal users. */
const STAFF_ONLY: RoutePolicy = { clientSession: 'none' };
const tags = ['notes'];

const VISIBILITY = 'An internal user limited to some companies sees the notes on those companies and on their clients.';
const CONTENT =
  `title: one line, ${NOTE_TITLE_MAX} characters at most; content: HTML, ${NOTE_CONTENT_MAX} characters at most, stored and answered ` +
  'as given: it is NOT sanitized by this service, and must be escaped or sanitized by whoever renders it.';

export default async function noteRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { database, pageTokens } = app.ctx;

  app.get(
    '/notes',
    {
      config: { policy: STAFF_ONLY },
      schema: {
        tags,
        operationId: 'listNotes',
        summary: 'List notes on clients and companies, newest first',
        description: `Filters: entityType, and entityId (with entityType). ${VISIBILITY}`,
        querystring: NoteListQuery,
        response: { 200: Page(Note), ...READ_ERRORS },
      },
    },
    async (request) => service.listNotes(database, request.caller, request.query, pageTokens),
  );
  app.post(
    '/notes',
    {
      config: { policy: STAFF_ONLY },
      schema: {
        tags,
        operationId: 'createNote',
        summary: 'Create a note on a client or a company: noteCreated',
        description: `The client or company must be one the caller sees. ${CONTENT}`,
        body: NoteCreate,
        response: { 200: Note, ...WRITE_ERRORS },
      },
    },
    async (request) => service.createNote(database, request.caller, request.body),
  );
  app.get(
    '/notes/:id',
    {
      config: { policy: STAFF_ONLY },
      schema: {
        tags,
        operationId: 'retrieveNote',
        summary: 'Retrieve a note',
        description: VISIBILITY,
        params: IdParams,
        response: { 200: Note, ...READ_ERRORS },
      },
    },
    async (request) => service.getNote(database, request.caller, request.params.id),
  );
  app.patch(
    '/notes/:id',
    {
      config: { policy: STAFF_ONLY },
      schema: {
        tags,
        operationId: 'updateNote',
        summary: 'Update a note’s title or content: noteUpdated (none when nothing changed)',
        description: CONTENT,
        params: IdParams,
        body: NoteUpdate,
        response: { 200: Note, ...WRITE_ERRORS },
      },
    },
    async (request) => service.updateNote(database, request.caller, request.params.id, request.body),
  );
  app.delete(
    '/notes/:id',
    {
      config: { policy: STAFF_ONLY },
      schema: {
        tags,
        operationId: 'deleteNote',
        summary: 'Delete a note for good: noteDeleted',
        description:
          'A note the caller sees. Staff only: client sessions get a 404; an internal user limited to some companies sees the notes ' +
          'on them and on their clients.',
        params: IdParams,
        response: { 200: DeletedBody, ...DELETE_ERRORS },
      },
    },
    async (request) => service.deleteNote(database, request.caller, request.params.id),
  );
}
