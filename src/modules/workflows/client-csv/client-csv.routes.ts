import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Socket } from 'node:net';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { ADMIN_ERRORS, ADMIN_WRITE_ERRORS, WorkspaceParams, adminDoc } from '../../../lib/schemas.js';
import { Type } from 'typebox';
import { errors } from '../../../lib/errors.js';
import { ImportResult } from './client-csv.schemas.js';
import { clientsCsv, importClients } from './client-csv.service.js';

/** The largest CSV body the import takes (the API's other bodies: 1 MiB). */
const CSV_BODY_LIMIT = 50 * 1024 * 1024;

const UTF8 = /^utf-?8$/i;
/** The import's body: CSV text, read as a stream (no `type`: the stream itself is what the route receives). */
const CsvBody = Type.Unsafe<Readable | undefined>({ description: 'CSV (RFC 4180), UTF-8, at most 50 MB' });
/** The export's body: CSV text, sent as a stream. */
const CsvText = Type.Unsafe<Readable>({ type: 'string', description: 'CSV (RFC 4180, CRLF line ends, UTF-8)' });
const COLUMNS =
  'Columns (header row required): `email`, `givenName`, `familyName`, `company` (a company name: found case-insensitively, ' +
  'created when the workspace has none; empty: a placeholder company) and one per client custom field key (multiSelect: ' +
  "option labels, keys or ids separated by `;`; address: a JSON object). A cell starting with `'` followed by `=`, `+`, `-`, " +
  "`@`, a tab or CR loses that `'` (what the export adds against spreadsheet formulas).";

/** A pipeline step passing bytes on until there are more than `limit`: then a 413. */
function capped(limit: number) {
  return async function* (source: AsyncIterable<Buffer>) {
    let bytes = 0;
    for await (const chunk of source) {
      bytes += chunk.length;
      if (bytes > limit) throw errors.payloadTooLarge(limit);
      yield chunk;
    }
  };
}

/** Client CSV import and export on the admin surface (as `portal import clients` and `portal export clients`). */
export async function clientCsvAdminRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { database, clock } = app.ctx;

  // This plugin's bodies only: a CSV body is handed over as the raw stream, which the route writes to a
  // temporary file (its size checked as it arrives, beyond a Content-Length announced too large).
  app.addContentTypeParser('text/csv', (request, payload, done) => {
    const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(request.headers['content-type'] ?? '')?.[1];
    if (charset !== undefined && !UTF8.test(charset)) {
      return done(errors.unsupportedMediaType(`A CSV body must be UTF-8 (got charset=${charset}).`), undefined);
    }
    if (Number(request.headers['content-length'] ?? 0) > CSV_BODY_LIMIT) return done(errors.payloadTooLarge(CSV_BODY_LIMIT), undefined);
    done(null, payload);
  });

  app.post(
    '/workspaces/:workspaceId/imports/clients',
    {
      schema: {
        ...adminDoc,
        operationId: 'adminImportClients',
        summary: 'Import clients from a CSV body (Content-Type: text/csv): created, skipped (email already there) and refused rows',
        description:
          `${COLUMNS} Each row is checked like POST /v1/clients' body and created with creationMethod \`import\` (clientCreated, ` +
          'and companyCreated for each company made, so webhooks fire), 500 rows per transaction: after a failure, sending the ' +
          'same file again finishes the job (rows already created are skipped). A bad row is reported with its line (the header ' +
          `is line 1) and the import goes on; \`errors\` lists at most 1,000 rows (then \`truncatedErrors: true\`). Unknown ` +
          `columns are a 400 before any row is imported. The body (at most ${CSV_BODY_LIMIT / 1024 / 1024} MB, else 413) is received whole ` +
          'within REQUEST_TIMEOUT_MS, then imported: the answer comes when every row is done, however long that takes (100,000 rows: ' +
          'a few seconds on SQLite, about 20 s on PostgreSQL).',
        params: WorkspaceParams,
        consumes: ['text/csv'],
        // For the document only: the body is the raw stream (this plugin's parser), which no schema could check.
        body: { content: { 'text/csv': { schema: CsvBody } } },
        response: { 200: ImportResult, ...ADMIN_WRITE_ERRORS },
      },
    },
    async (request) => {
      const { workspaceId } = request.caller.access;
      const body = request.body as unknown;
      if (body !== undefined && !(body instanceof Readable))
        throw errors.unsupportedMediaType('The body must be CSV (Content-Type: text/csv).');
      // Received whole first, then imported: REQUEST_TIMEOUT_MS bounds the upload (slow clients), not the
      // import, which takes as long as its rows do. The file lives as long as the request.
      const dir = await mkdtemp(join(tmpdir(), 'portal-import-'));
      // While importing, the socket is silent: its idle timeout (4 × REQUEST_TIMEOUT_MS) must not close it
      // under a caller waiting for the answer. Restored before the answer, for the connection's next request.
      const socket = request.raw.socket as Partial<Socket>; // injected requests (tests) have a socket without timers
      socket.setTimeout?.(0);
      try {
        const file = join(dir, 'clients.csv');
        await pipeline(body ?? Readable.from([]), capped(CSV_BODY_LIMIT), createWriteStream(file));
        return await importClients(database, clock, workspaceId, createReadStream(file));
      } finally {
        socket.setTimeout?.(app.server.timeout);
        await rm(dir, { recursive: true, force: true });
      }
    },
  );

  app.get(
    '/workspaces/:workspaceId/exports/clients',
    {
      schema: {
        ...adminDoc,
        operationId: 'adminExportClients',
        summary: "The workspace's clients as CSV (text/csv, an attachment), oldest first, in the import's columns",
        description:
          `${COLUMNS.replace('(header row required)', '')} \`company\` is the client's primary company, empty for a placeholder. ` +
          'Values are quoted when they hold `,` `"` CR or LF; a value starting with `=`, `+`, `-`, `@`, a tab or CR gets a `\'` in front.',
        params: WorkspaceParams,
        response: {
          200: { description: 'CSV, read from the database a page at a time as it is sent', content: { 'text/csv': { schema: CsvText } } },
          ...ADMIN_ERRORS,
        },
      },
    },
    async (request, reply) => {
      const caller = request.caller;
      const { workspaceId } = caller.access;
      const chunks = await clientsCsv(database, caller);
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="clients-${workspaceId}.csv"`)
        .send(Readable.from(chunks));
    },
  );
}
