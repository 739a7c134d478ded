// The naive server: what a straightforward Fastify + better-sqlite3 (or + pg) program serving the same client
// routes costs, to hold the real server against. API keys in a Map, one prepared statement per request,
// no limits, no quota, no audit, no unit of work. Same response schemas as the real server (imported
// from src/), so the same serializer writes the same bytes. Configured by env:
//   PORT, HOST, LOG_LEVEL (default warn: no per-request logs),
//   NAIVE_DATABASE   path of the SQLite file (the bench hands it a copy of the seeded database), or
//   NAIVE_DATABASE_URL  a PostgreSQL URL, `?schema=` naming the schema of its tables (`npm run bench -- --postgres`
//                    hands it a copy of the seeded workspaces, companies, clients, invoices, message channels and
//                    messages, with their indexes and keys),
//   NAIVE_API_KEYS   JSON object: API key → workspace id (the bench's keys; this server cannot check secrets).
// Routes: GET /v1/clients/:id, GET /v1/clients?limit=&nextToken=, POST /v1/clients (one row in clients), and the pages of
// GET /v1/invoices?limit=&nextToken= and GET /v1/messages?channelId=&limit=&nextToken= (the channel looked up first: a 404).
import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import Database from 'better-sqlite3';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import pg from 'pg';
import { type TSchema, Type } from 'typebox';
import { postgresConnection } from '../src/db/postgres.js';
import { fallbackColorFor } from '../src/lib/fallback-color.js';
import { Page, PageQuery } from '../src/lib/schemas.js';
import { billingFields } from '../src/modules/resources/billing/terms.js';
import { Invoice } from '../src/modules/resources/billing/invoices.schemas.js';
import { Client, ClientCreate } from '../src/modules/resources/directory/clients.schemas.js';
import { FileObject } from '../src/modules/resources/files/files.schemas.js';
import { Message } from '../src/modules/resources/messages/messages.schemas.js';

function required(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`naive server: ${name} is required`);
  return value;
}

const keys = new Map<string, string>(Object.entries(JSON.parse(required('NAIVE_API_KEYS')) as Record<string, string>));

interface ClientRow {
  id: string;
  email: string;
  given_name: string;
  family_name: string;
  avatar_image_url: string | null;
  company_id: string;
  company_ids: string;
  status: string;
  creation_method: string;
  first_login_date: string | null;
  last_login_date: string | null;
  invited_by: string | null;
  custom_fields: string;
  created_at: string;
  updated_at: string;
}

const SELECT_CLIENTS = 'select * from clients where workspace_id = ?';
const SELECT_INVOICES = 'select * from invoices where workspace_id = ?';
const SELECT_MESSAGES = 'select * from messages where workspace_id = ? and channel_id = ?';
const SELECT_FILES = 'select * from files where workspace_id = ? and channel_id = ?';
// Row-value keyset: the database walks the (workspace_id, …, created_at, id) index from the cursor on.
const FIRST = ' order by created_at desc, id desc limit ?';
const AFTER = ' and (created_at, id) < (?, ?) order by created_at desc, id desc limit ?';

/** Every statement this server runs, by name; each prepared once (per connection on PostgreSQL). */
const STATEMENTS = {
  clientById: 'select * from clients where workspace_id = ? and id = ?',
  clientsFirst: SELECT_CLIENTS + FIRST,
  clientsAfter: SELECT_CLIENTS + AFTER,
  insertClient: `insert into clients (id, workspace_id, email, email_key, given_name, family_name, company_id, company_ids, status,
     creation_method, avatar_image_url, first_login_date, last_login_date, invited_by, invite_token_hash, custom_fields,
     created_at, updated_at)
   values (?, ?, ?, ?, ?, ?, ?, ?, 'notInvited', 'internalUser', null, null, null, null, null, '{}', ?, ?)`,
  invoicesFirst: SELECT_INVOICES + FIRST,
  invoicesAfter: SELECT_INVOICES + AFTER,
  messageChannelById: 'select id from message_channels where workspace_id = ? and id = ?',
  messagesFirst: SELECT_MESSAGES + FIRST,
  messagesAfter: SELECT_MESSAGES + AFTER,
  fileChannelById: 'select id from file_channels where workspace_id = ? and id = ?',
  filesFirst: SELECT_FILES + FIRST,
  filesAfter: SELECT_FILES + AFTER,
};
type Statement = keyof typeof STATEMENTS;

/** The statements, on either database: `all` answers a read's rows (none for a write), `one` its first row. */
interface Store {
  all<Row>(statement: Statement, values: unknown[]): Promise<Row[]>;
  one<Row>(statement: Statement, values: unknown[]): Promise<Row | undefined>;
  close(): Promise<void>;
}

function sqliteStore(path: string): Store {
  const db = new Database(path);
  // The real server's durability and integrity settings, so a write costs the same fsync policy and checks.
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  const prepared = new Map(Object.entries(STATEMENTS).map(([name, text]) => [name, db.prepare(text)]));
  return {
    async all<Row>(statement: Statement, values: unknown[]) {
      const query = prepared.get(statement) as Database.Statement;
      if (query.reader) return query.all(...values) as Row[];
      query.run(...values);
      return [];
    },
    one: async <Row>(statement: Statement, values: unknown[]) =>
      (prepared.get(statement) as Database.Statement).get(...values) as Row | undefined,
    close: async () => void db.close(),
  };
}

/** A pool as large as the real server's (its default), each statement prepared once per connection (named). */
function postgresStore(url: string): Store {
  const { connectionString, schema } = postgresConnection(url);
  const pool = new pg.Pool({ connectionString, max: 10, ...(schema ? { options: `-c search_path=${schema}` } : {}) });
  const numbered = (text: string) => {
    let n = 0;
    return text.replace(/\?/g, () => `$${++n}`);
  };
  const texts = new Map(Object.entries(STATEMENTS).map(([name, text]) => [name, numbered(text)]));
  const all = async <Row>(statement: Statement, values: unknown[]) =>
    (await pool.query({ name: `naive_${statement}`, text: texts.get(statement) as string, values })).rows as Row[];
  return {
    all,
    one: async <Row>(statement: Statement, values: unknown[]) => (await all<Row>(statement, values))[0],
    close: () => pool.end(),
  };
}

const store = process.env.NAIVE_DATABASE_URL ? postgresStore(process.env.NAIVE_DATABASE_URL) : sqliteStore(required('NAIVE_DATABASE'));

function toClient(row: ClientRow) {
  return {
    id: row.id,
    object: 'client',
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    email: row.email,
    givenName: row.given_name,
    familyName: row.family_name,
    ...(row.avatar_image_url ? { avatarImageUrl: row.avatar_image_url } : {}),
    companyId: row.company_id,
    companyIds: row.company_ids ? row.company_ids.split(',') : [],
    customFields: JSON.parse(row.custom_fields),
    fallbackColor: fallbackColorFor(row.id),
    status: row.status,
    creationMethod: row.creation_method,
    firstLoginDate: row.first_login_date,
    lastLoginDate: row.last_login_date,
    ...(row.invited_by ? { invitedBy: row.invited_by } : {}),
  };
}

interface InvoiceRow {
  id: string;
  number: number | null;
  client_id: string | null;
  company_id: string;
  status: 'draft' | 'open' | 'paid' | 'void';
  terms: string;
  subtotal: number | string;
  tax_amount: number | string;
  total: number | string;
  due_date: string;
  sent_date: string | null;
  billing_reason: 'manual' | 'subscriptionCycle';
  collection_method: 'sendInvoice' | 'chargeAutomatically';
  subscription_id: string | null;
  paid_at: string | null;
  amount_refunded: number | string;
  attempt_count: number;
  next_payment_attempt_at: string | null;
  created_at: string;
  updated_at: string;
}

/** An invoice as the API serves it: its row, its terms (JSON) read by the server's own billingFields. */
function toInvoice(row: InvoiceRow) {
  return {
    id: row.id,
    object: 'invoice',
    number: row.number === null ? undefined : String(row.number).padStart(4, '0'),
    status: row.status,
    ...billingFields(row),
    subtotal: Number(row.subtotal),
    taxAmount: Number(row.tax_amount),
    total: Number(row.total),
    dueDate: row.due_date,
    sentDate: row.sent_date ?? undefined,
    billingReason: row.billing_reason,
    subscriptionId: row.subscription_id ?? undefined,
    paymentSuccessDate: row.paid_at ?? undefined,
    amountRefunded: Number(row.amount_refunded) > 0 ? Number(row.amount_refunded) : undefined,
    attemptCount: row.attempt_count > 0 ? row.attempt_count : undefined,
    nextPaymentAttempt: row.next_payment_attempt_at ?? undefined,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

interface MessageRow {
  id: string;
  sender_id: string;
  channel_id: string;
  text: string;
  created_at: string;
  updated_at: string;
}

const toMessage = (row: MessageRow) => ({
  id: row.id,
  object: 'message',
  senderId: row.sender_id,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  channelId: row.channel_id,
  text: row.text,
  isAttachmentIncluded: false,
});

interface FileRow {
  id: string;
  object: 'file' | 'folder' | 'link';
  channel_id: string;
  path: string;
  name: string;
  link_url: string | null;
  client_permissions: 'read_only' | 'read_write' | null;
  status: 'pending' | 'completed';
  size: number | string | null;
  content_type: string | null;
  creator_id: string | null;
  modified_by_id: string | null;
  modified_by_object: 'client' | 'internalUser' | null;
  created_at: string;
  updated_at: string;
}

/** A file object as the API serves it: the fields with a value. */
const toFile = (row: FileRow) => ({
  id: row.id,
  object: row.object,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  channelId: row.channel_id,
  name: row.name,
  path: row.path,
  ...(row.creator_id === null ? {} : { creatorId: row.creator_id }),
  ...(row.modified_by_id === null || row.modified_by_object === null
    ? {}
    : { lastModifiedBy: { id: row.modified_by_id, object: row.modified_by_object } }),
  ...(row.link_url === null ? {} : { linkUrl: row.link_url }),
  ...(row.object === 'file' ? { status: row.status } : {}),
  ...(row.size === null ? {} : { size: Number(row.size) }),
  ...(row.content_type === null ? {} : { contentType: row.content_type }),
  ...(row.client_permissions === null ? {} : { clientPermissions: row.client_permissions === 'read_only' ? 'read-only' : 'read-write' }),
});

/**
 * Page tokens in the real server's format (base64 of JSON {c, i, s}, s an HMAC-SHA256 of the cursor),
 * so a page answers the same number of bytes; the key is random per process. One HMAC per page.
 */
const tokenKey = randomBytes(32);
const sign = (c: string, i: string) => createHmac('sha256', tokenKey).update(`${c}\n${i}`).digest('base64url');
const encodeToken = (c: string, i: string) => Buffer.from(JSON.stringify({ c, i, s: sign(c, i) })).toString('base64');

function decodeToken(token: string): { c: string; i: string } | undefined {
  try {
    const { c, i, s } = JSON.parse(Buffer.from(token, 'base64').toString('utf8')) as Record<string, unknown>;
    if (typeof c !== 'string' || typeof i !== 'string' || typeof s !== 'string') return undefined;
    const expected = Buffer.from(sign(c, i));
    const given = Buffer.from(s);
    return given.length === expected.length && timingSafeEqual(given, expected) ? { c, i } : undefined;
  } catch {
    return undefined;
  }
}

const error = (reply: FastifyReply, status: number, code: string, message: string) =>
  reply.code(status).send({ code, message, data: null });

/** The workspace of the request's key, or undefined once a 401 is sent. */
function workspaceOf(request: FastifyRequest, reply: FastifyReply): string | undefined {
  const key = request.headers['x-api-key'];
  const workspaceId = typeof key === 'string' ? keys.get(key) : undefined;
  if (workspaceId === undefined) error(reply, 401, 'unauthorized', 'Missing or unknown API key.');
  return workspaceId;
}

const app = Fastify({ logger: { level: process.env.LOG_LEVEL || 'warn' } });

app.get<{ Params: { id: string } }>(
  '/v1/clients/:id',
  { schema: { params: Type.Object({ id: Type.String() }), response: { 200: Client } } },
  async (request, reply) => {
    const workspaceId = workspaceOf(request, reply);
    if (workspaceId === undefined) return reply;
    const row = await store.one<ClientRow>('clientById', [workspaceId, request.params.id]);
    return row ? toClient(row) : error(reply, 404, 'not_found', 'Client not found.');
  },
);

interface PageParams {
  limit: number;
  nextToken?: string;
}

/** A page of a list newest first, the first or the one after the request's nextToken (else a 400), as the server pages. */
async function pageOf<Row extends { created_at: string; id: string }>(
  reply: FastifyReply,
  [first, after]: [Statement, Statement],
  where: unknown[],
  { limit, nextToken }: PageParams,
  toItem: (row: Row) => unknown,
) {
  let rows: Row[];
  if (nextToken === undefined) {
    rows = await store.all<Row>(first, [...where, limit + 1]);
  } else {
    const cursor = decodeToken(nextToken);
    if (!cursor) return error(reply, 400, 'bad_request', 'nextToken is not a page token of this list.');
    rows = await store.all<Row>(after, [...where, cursor.c, cursor.i, limit + 1]);
  }
  if (rows.length <= limit) return { data: rows.map(toItem) };
  rows.length = limit;
  const last = rows[limit - 1];
  return { data: rows.map(toItem), nextToken: encodeToken(last.created_at, last.id) };
}

app.get<{ Querystring: PageParams }>(
  '/v1/clients',
  { schema: { querystring: Type.Object(PageQuery), response: { 200: Page(Client) } } },
  async (request, reply) => {
    const workspaceId = workspaceOf(request, reply);
    if (workspaceId === undefined) return reply;
    return pageOf(reply, ['clientsFirst', 'clientsAfter'], [workspaceId], request.query, toClient);
  },
);

app.get<{ Querystring: PageParams }>(
  '/v1/invoices',
  { schema: { querystring: Type.Object(PageQuery), response: { 200: Page(Invoice) } } },
  async (request, reply) => {
    const workspaceId = workspaceOf(request, reply);
    if (workspaceId === undefined) return reply;
    return pageOf(reply, ['invoicesFirst', 'invoicesAfter'], [workspaceId], request.query, toInvoice);
  },
);

/** A channel's page (messages, files): the channel looked up in the workspace first (a 404 as the server's), then its items. */
function channelPageRoute<Row extends { created_at: string; id: string }>(
  url: string,
  item: TSchema,
  [channelById, first, after]: [Statement, Statement, Statement],
  channelName: string,
  toItem: (row: Row) => unknown,
) {
  app.get<{ Querystring: PageParams & { channelId: string } }>(
    url,
    { schema: { querystring: Type.Object({ ...PageQuery, channelId: Type.String() }), response: { 200: Page(item) } } },
    async (request, reply) => {
      const workspaceId = workspaceOf(request, reply);
      if (workspaceId === undefined) return reply;
      const { channelId } = request.query;
      if (!(await store.one(channelById, [workspaceId, channelId]))) return error(reply, 404, 'not_found', `${channelName} not found.`);
      return pageOf(reply, [first, after], [workspaceId, channelId], request.query, toItem);
    },
  );
}

channelPageRoute('/v1/messages', Message, ['messageChannelById', 'messagesFirst', 'messagesAfter'], 'Message channel', toMessage);
channelPageRoute('/v1/files', FileObject, ['fileChannelById', 'filesFirst', 'filesAfter'], 'File channel', toFile);

app.post<{ Body: { email: string; givenName: string; familyName: string; companyId?: string } }>(
  '/v1/clients',
  { schema: { body: ClientCreate, response: { 200: Client } } },
  async (request, reply) => {
    const workspaceId = workspaceOf(request, reply);
    if (workspaceId === undefined) return reply;
    const { email, givenName, familyName, companyId } = request.body;
    if (companyId === undefined) return error(reply, 400, 'bad_request', 'companyId is required here.');
    const id = randomUUID();
    const at = new Date().toISOString();
    // One row; a taken email or an unknown company is a constraint error (500 here: naive).
    await store.all('insertClient', [id, workspaceId, email, email.toLowerCase(), givenName, familyName, companyId, companyId, at, at]);
    return toClient({
      id,
      email,
      given_name: givenName,
      family_name: familyName,
      avatar_image_url: null,
      company_id: companyId,
      company_ids: companyId,
      status: 'notInvited',
      creation_method: 'internalUser',
      first_login_date: null,
      last_login_date: null,
      invited_by: null,
      custom_fields: '{}',
      created_at: at,
      updated_at: at,
    });
  },
);

const shutdown = () =>
  void app.close().then(
    () => store.close().then(() => process.exit(0)),
    () => process.exit(1),
  );
process.once('SIGTERM', shutdown);
process.once('SIGINT', shutdown);

await app.listen({ port: Number(required('PORT')), host: process.env.HOST || '127.0.0.1' });
