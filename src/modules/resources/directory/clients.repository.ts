import { type ExpressionBuilder, type Kysely, type SelectQueryBuilder, sql } from 'kysely';
import { joinIds, lockedForUpdate, nonEmpty, parseObject, splitIds } from '../../../db/rows.js';
import { type Page, type PageTokens, fetchPage, pageScope, preparedList } from '../../../db/paging.js';
import { type FullRow, preparedQuery, preparedWrite } from '../../../db/prepared.js';
import type { ClientsTable, DB } from '../../../db/schema.js';
import type { UnitOfWork } from '../../../db/unit-of-work.js';
import type { Access } from '../../../lib/caller.js';
import { fallbackColorFor } from '../../../lib/fallback-color.js';
import { clientTerms, prefixRange } from '../../../lib/search-terms.js';
import type { Client, ClientListQuery } from './clients.schemas.js';

/**
 * Clients' storage. A client's companies are the `client_companies` rows; `clients.company_ids` is
 * their ordered copy (primary first) so that one row answers a read. Both are written here only, by
 * `insertClient` and `updateClient`, in the same unit of work.
 */

/**
 * The columns a client is served from, and only those: a page of 100 decodes no workspace id, e-mail key or invite
 * hash it would not send (five of the row's twenty columns; bench/README.md, 2026-12-01 (morning)).
 */
const CLIENT_COLUMNS = [
  'clients.id',
  'clients.created_at',
  'clients.updated_at',
  'clients.email',
  'clients.given_name',
  'clients.family_name',
  'clients.avatar_image_url',
  'clients.company_id',
  'clients.company_ids',
  'clients.custom_fields',
  'clients.status',
  'clients.creation_method',
  'clients.first_login_date',
  'clients.last_login_date',
  'clients.invited_by',
] as const;
/** A row of CLIENT_COLUMNS: the table's columns of those names. */
type ClientRow = Pick<ClientsTable, (typeof CLIENT_COLUMNS)[number] extends `clients.${infer Column}` ? Column : never>;

/** One literal, every key always present (absent optional fields undefined): it runs for every row served. */
function toClient(row: ClientRow): Client {
  return {
    id: row.id,
    object: 'client',
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    email: row.email,
    givenName: row.given_name,
    familyName: row.family_name,
    avatarImageUrl: row.avatar_image_url || undefined,
    companyId: row.company_id,
    companyIds: splitIds(row.company_ids),
    customFields: parseObject(row.custom_fields),
    fallbackColor: fallbackColorFor(row.id),
    status: row.status,
    creationMethod: row.creation_method,
    firstLoginDate: row.first_login_date,
    lastLoginDate: row.last_login_date,
    invitedBy: row.invited_by || undefined,
  };
}

/** Clients with a membership in one of these companies. */
const inAnyOf =
  (companyIds: readonly string[]) =>
  ({ exists, selectFrom }: ExpressionBuilder<DB, 'clients'>) =>
    exists(
      selectFrom('client_companies as m')
        .select('m.client_id')
        .whereRef('m.client_id', '=', 'clients.id')
        .where('m.company_id', 'in', nonEmpty(companyIds)),
    );

/** Clients this access may see: its workspace's; a limited principal only those of its companies; a client only itself. */
function visible(db: Kysely<DB>, access: Access): SelectQueryBuilder<DB, 'clients', ClientRow> {
  let q = db.selectFrom('clients').select(CLIENT_COLUMNS).where('clients.workspace_id', '=', access.workspaceId);
  if (access.clientId) q = q.where('clients.id', '=', access.clientId);
  if (access.companyIds) q = q.where(inAnyOf(access.companyIds));
  return q;
}

/**
 * The clients among these ids that this access sees, each with its companies that the access sees too
 * (a limited principal learns nothing of a client or company outside its companies).
 */
export async function visibleClientCompanies(db: Kysely<DB>, access: Access, ids: readonly string[]): Promise<Map<string, string[]>> {
  const rows = await visible(db, access)
    .clearSelect()
    .select(['clients.id', 'clients.company_ids'])
    .where('clients.id', 'in', nonEmpty(ids))
    .execute();
  const seen = access.companyIds;
  return new Map(rows.map((row) => [row.id, splitIds(row.company_ids).filter((id) => seen === null || seen.includes(id))]));
}

const clientById = preparedQuery('client_by_id', (db, p: { workspaceId: string; id: string }) =>
  db.selectFrom('clients').select(CLIENT_COLUMNS).where('clients.workspace_id', '=', p.workspaceId).where('clients.id', '=', p.id),
);

export async function findClient(db: Kysely<DB>, access: Access, id: string): Promise<Client | undefined> {
  const row =
    !access.companyIds && !access.clientId
      ? await clientById.first(db, { workspaceId: access.workspaceId, id })
      : await visible(db, access).where('clients.id', '=', id).executeTakeFirst();
  return row && toClient(row);
}

/** The list's filters, as stored: an email by its key (trimmed, lower-cased). A type, not an interface: prepared lists take records. */
type ClientFilters = {
  emailKey?: string;
  givenName?: string;
  familyName?: string;
};

function filtered<Q extends SelectQueryBuilder<DB, 'clients' | 'client_companies', ClientRow>>(q: Q, f: ClientFilters): Q {
  let filteredQuery = q;
  if (f.emailKey !== undefined) filteredQuery = filteredQuery.where('clients.email_key', '=', f.emailKey) as Q;
  if (f.givenName !== undefined) filteredQuery = filteredQuery.where('clients.given_name', '=', f.givenName) as Q;
  if (f.familyName !== undefined) filteredQuery = filteredQuery.where('clients.family_name', '=', f.familyName) as Q;
  return filteredQuery;
}

/** A whole workspace's clients (a key's, a bearer token's, an unlimited user's), not by company: prepared per filter shape. */
const workspaceClients = preparedList(
  'clients_page',
  (db, p: ClientFilters & { workspaceId: string }) =>
    filtered(db.selectFrom('clients').select(CLIENT_COLUMNS).where('clients.workspace_id', '=', p.workspaceId), p),
  'clients',
  toClient,
);

/**
 * A page of clients. Each filter has its index (`(workspace_id, filter, created_at, id)`; an email is
 * unique): a page is a range of it at any depth. The clients of one company are paged from
 * `client_companies` (its `client_created_at` copy keeps them in the list's order). A search (`q`) is its own
 * query (searchClients), taken only when given.
 */
export function listClients(db: Kysely<DB>, access: Access, query: ClientListQuery, tokens: PageTokens): Promise<Page<Client>> {
  const { limit, nextToken, ...filters } = query;
  const scope = pageScope(access, 'clients', filters);
  const companyId = filters.companyId;
  const stored = { emailKey: filters.email?.trim().toLowerCase(), givenName: filters.givenName, familyName: filters.familyName };
  if (filters.q !== undefined) return searchClients(db, access, filters.q, companyId, stored, { limit, nextToken }, tokens, scope);
  if (companyId === undefined && !access.companyIds && !access.clientId) {
    return workspaceClients(db, { workspaceId: access.workspaceId, ...stored }, { limit, nextToken }, tokens, scope);
  }
  const q =
    companyId === undefined
      ? visible(db, access)
      : visible(db, access)
          .innerJoin('client_companies as page', 'page.client_id', 'clients.id')
          .where('page.workspace_id', '=', access.workspaceId)
          .where('page.company_id', '=', companyId);
  const keyset = companyId === undefined ? 'clients' : { createdAt: 'page.client_created_at', id: 'page.client_id' };
  return fetchPage(filtered(q, stored), keyset, { limit, nextToken }, tokens, scope, toClient);
}

/**
 * Past this many matching terms, a search reads the list's own order (`clients_page`, newest first) and keeps the
 * clients with a matching term (one probe of `client_search_terms_owner` each): matches are then common, and a page is
 * found after a few hundred rows. Below it, the matching terms are read as a range of the primary key and their clients
 * sorted: a few thousand at most. Either way a page costs about the same, however common the prefix (docs/api.md).
 */
const COMMON_PREFIX_TERMS = 2000;

/** A search term (`t.term`) in the query's range. */
const termIn =
  ({ from, to }: { from: string; to?: string }) =>
  (eb: ExpressionBuilder<{ t: { term: string } }, 't'>) =>
    to === undefined ? eb('t.term', '>=', from) : eb.and([eb('t.term', '>=', from), eb('t.term', '<', to)]);

/** Whether at least COMMON_PREFIX_TERMS terms of the workspace are in the range (reading that many at most). */
async function commonPrefix(db: Kysely<DB>, access: Access, range: { from: string; to?: string }): Promise<boolean> {
  const terms = db
    .selectFrom('client_search_terms as t')
    .select('t.client_id')
    .where('t.workspace_id', '=', access.workspaceId)
    .where(termIn(range))
    .limit(COMMON_PREFIX_TERMS);
  const row = await db
    .selectFrom(terms.as('m'))
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n) >= COMMON_PREFIX_TERMS;
}

/**
 * A page of the clients this access sees with a term in the query's range (lib/search-terms.ts), the other filters
 * applied, newest first as the list, each client once however many of its terms match; the page's keyset is the
 * list's own, so paging is as stable. Two plans of one answer: see COMMON_PREFIX_TERMS.
 */
async function searchClients(
  db: Kysely<DB>,
  access: Access,
  q: string,
  companyId: string | undefined,
  stored: ClientFilters,
  page: { limit?: number; nextToken?: string },
  tokens: PageTokens,
  scope: string,
): Promise<Page<Client>> {
  const range = prefixRange(q);
  let query = visible(db, access);
  if (range === undefined) query = query.where(sql<boolean>`false`);
  else {
    const terms = db.selectFrom('client_search_terms as t').select('t.client_id').where(termIn(range));
    query = (await commonPrefix(db, access, range))
      ? query.where(({ exists }) => exists(terms.where('t.client_id', '=', sql.ref<string>('clients.id'))))
      : query.where('clients.id', 'in', terms.where('t.workspace_id', '=', access.workspaceId));
  }
  if (companyId !== undefined) query = query.where(inAnyOf([companyId]));
  return fetchPage(filtered(query, stored), 'clients', page, tokens, scope, toClient);
}

/** Which of these email keys (trimmed, lower-cased emails) are taken in the workspace: one range of the unique index. */
export async function takenEmailKeys(db: Kysely<DB>, access: Access, emailKeys: readonly string[]): Promise<Set<string>> {
  if (emailKeys.length === 0) return new Set();
  const rows = await db
    .selectFrom('clients')
    .select('email_key')
    .where('workspace_id', '=', access.workspaceId)
    .where('email_key', 'in', emailKeys)
    .execute();
  return new Set(rows.map((r) => r.email_key));
}

/**
 * Clients oldest first (created_at, then id), `limit` after the keyset position `after`: a range of the
 * `clients_page` index however deep, for reading every client of a workspace (the CSV export).
 */
export async function clientsInCreationOrder(
  db: Kysely<DB>,
  access: Access,
  after: { createdAt: string; id: string } | undefined,
  limit: number,
): Promise<Client[]> {
  let q = visible(db, access);
  // The row-value comparison fetchPage uses (db/paging.ts): a range of the index on both dialects.
  if (after) q = q.where(sql<boolean>`(clients.created_at, clients.id) > (${after.createdAt}, ${after.id})`);
  const rows = await q.orderBy('clients.created_at').orderBy('clients.id').limit(limit).execute();
  return rows.map(toClient);
}

/** Every client with a membership in the company. */
export async function clientsOfCompany(db: Kysely<DB>, access: Access, companyId: string): Promise<Client[]> {
  const rows = await visible(db, access)
    .where(inAnyOf([companyId]))
    .execute();
  return rows.map(toClient);
}

const insertClientRow = preparedWrite('insert_client', (db, row: FullRow<'clients'>) => db.insertInto('clients').values(row));
const insertTerm = preparedWrite('insert_client_search_term', (db, row: FullRow<'client_search_terms'>) =>
  db.insertInto('client_search_terms').values(row),
);
const deleteTerms = preparedWrite('delete_client_search_terms', (db, p: { workspaceId: string; clientId: string }) =>
  db.deleteFrom('client_search_terms').where('workspace_id', '=', p.workspaceId).where('client_id', '=', p.clientId),
);

/** The client's search terms (its name's and its e-mail's), one prepared insert each. */
function writeTerms(work: UnitOfWork, access: Access, client: Client) {
  for (const term of clientTerms(client.givenName, client.familyName, client.email)) {
    work.write(insertTerm(work.db, { workspace_id: access.workspaceId, term, client_id: client.id }));
  }
}

const insertMembership = preparedWrite('insert_client_company', (db, row: FullRow<'client_companies'>) =>
  db.insertInto('client_companies').values(row),
);

/** One row per company of the client, in the unit of work (a prepared insert each). */
function writeMemberships(work: UnitOfWork, access: Access, client: Client) {
  for (const company_id of client.companyIds) {
    const membership = { workspace_id: access.workspaceId, client_id: client.id, company_id, client_created_at: client.createdAt };
    work.write(insertMembership(work.db, membership), {
      client_companies_company_id_fkey: 'body.companyId',
    });
  }
}

/** A new client and its memberships; a taken email or a vanished company is its API error. */
export function insertClient(work: UnitOfWork, access: Access, client: Client, invite: { hash: string; expiresAt: string } | null): void {
  work.write(
    insertClientRow(work.db, {
      id: client.id,
      workspace_id: access.workspaceId,
      email: client.email,
      email_key: client.email.toLowerCase(),
      given_name: client.givenName,
      family_name: client.familyName,
      company_id: client.companyId,
      company_ids: joinIds(client.companyIds),
      status: client.status,
      creation_method: client.creationMethod,
      avatar_image_url: client.avatarImageUrl ?? null,
      email_notifications: 1,
      first_login_date: client.firstLoginDate,
      last_login_date: client.lastLoginDate,
      invited_by: client.invitedBy ?? null,
      invite_token_hash: invite?.hash ?? null,
      invite_expires_at: invite?.expiresAt ?? null,
      custom_fields: JSON.stringify(client.customFields),
      created_at: client.createdAt,
      updated_at: client.updatedAt,
    }),
    { clients_email_unique: client.email, clients_company_id_fkey: 'body.companyId' },
  );
  writeMemberships(work, access, client);
  writeTerms(work, access, client);
}

type ClientChanges = Pick<FullRow<'clients'>, 'given_name' | 'family_name' | 'company_id' | 'company_ids' | 'custom_fields' | 'updated_at'>;
const updateClientRow = preparedWrite('update_client', (db, p: ClientChanges & { workspaceId: string; id: string }) =>
  db
    .updateTable('clients')
    .set({
      given_name: p.given_name,
      family_name: p.family_name,
      company_id: p.company_id,
      company_ids: p.company_ids,
      custom_fields: p.custom_fields,
      updated_at: p.updated_at,
    })
    .where('workspace_id', '=', p.workspaceId)
    .where('id', '=', p.id),
);
const deleteMemberships = preparedWrite('delete_client_companies', (db, p: { workspaceId: string; clientId: string }) =>
  db.deleteFrom('client_companies').where('workspace_id', '=', p.workspaceId).where('client_id', '=', p.clientId),
);

/** Writes a client's changed fields; its memberships too when its companies changed, its search terms when its name did. */
export function updateClient(work: UnitOfWork, access: Access, client: Client, previous: Client): void {
  const companiesChanged = joinIds(client.companyIds) !== joinIds(previous.companyIds);
  if (client.givenName !== previous.givenName || client.familyName !== previous.familyName) {
    work.write(deleteTerms(work.db, { workspaceId: access.workspaceId, clientId: client.id }));
    writeTerms(work, access, client);
  }
  work.write(
    updateClientRow(work.db, {
      workspaceId: access.workspaceId,
      id: client.id,
      given_name: client.givenName,
      family_name: client.familyName,
      company_id: client.companyId,
      company_ids: joinIds(client.companyIds),
      custom_fields: JSON.stringify(client.customFields),
      updated_at: client.updatedAt,
    }),
    { clients_company_id_fkey: 'body.companyId' },
  );
  if (!companiesChanged) return;
  work.write(deleteMemberships(work.db, { workspaceId: access.workspaceId, clientId: client.id }));
  writeMemberships(work, access, client);
}

/** A new invite link for a client (the previous one stops working): status `invited`. */
export function setInvite(work: UnitOfWork, access: Access, client: Client, invite: { hash: string; expiresAt: string }): void {
  work.write(
    work.db
      .updateTable('clients')
      .set({ status: 'invited', invite_token_hash: invite.hash, invite_expires_at: invite.expiresAt, updated_at: client.updatedAt })
      .where('workspace_id', '=', access.workspaceId)
      .where('id', '=', client.id),
  );
}

export function deleteClient(work: UnitOfWork, access: Access, id: string): void {
  work.write(deleteTerms(work.db, { workspaceId: access.workspaceId, clientId: id }));
  work.write(work.db.deleteFrom('client_companies').where('workspace_id', '=', access.workspaceId).where('client_id', '=', id));
  work.write(work.db.deleteFrom('clients').where('workspace_id', '=', access.workspaceId).where('id', '=', id));
}

// ---- for sign-in (modules/surfaces/sign-in): a client signs in to its workspace's portal ------------------------------

/**
 * The client this access sees, with whether notifications are e-mailed to it (not a field of the client as the API
 * shows it). With `lockFor` (inside a transaction), its row locked until it ends on PostgreSQL (a read-modify-write).
 */
export async function findClientProfile(
  db: Kysely<DB>,
  access: Access,
  id: string,
  lockFor?: 'sqlite' | 'postgres',
): Promise<{ client: Client; emailNotifications: boolean } | undefined> {
  const query = visible(db, access).select('clients.email_notifications').where('clients.id', '=', id);
  const row = await (lockFor ? lockedForUpdate(query, lockFor) : query).executeTakeFirst();
  return row && { client: toClient(row), emailNotifications: row.email_notifications === 1 };
}

/** A client's own profile as it changed it: its names, its picture and whether notifications are e-mailed to it. */
export function updateClientProfile(work: UnitOfWork, access: Access, client: Client, emailNotifications: boolean): void {
  work.write(
    work.db
      .updateTable('clients')
      .set({
        given_name: client.givenName,
        family_name: client.familyName,
        avatar_image_url: client.avatarImageUrl ?? null,
        email_notifications: emailNotifications ? 1 : 0,
        updated_at: client.updatedAt,
      })
      .where('workspace_id', '=', access.workspaceId)
      .where('id', '=', client.id),
  );
}

/** The client of this e-mail (trimmed, case-insensitively) that this access sees, or undefined. */
export async function findClientByEmail(db: Kysely<DB>, access: Access, email: string): Promise<Client | undefined> {
  const row = await visible(db, access).where('clients.email_key', '=', email.trim().toLowerCase()).executeTakeFirst();
  return row && toClient(row);
}

/**
 * The client an invite link was sent to (the hash of its token), with the link's expiry. With `lockFor` (inside a
 * transaction), its row locked until it ends on PostgreSQL: of requests accepting one invite at once, the next finds
 * the invite spent by the first (SQLite has one writer).
 */
export async function findInvitedClient(
  db: Kysely<DB>,
  access: Access,
  tokenHash: string,
  lockFor?: 'sqlite' | 'postgres',
): Promise<{ client: Client; expiresAt: string | null } | undefined> {
  const query = visible(db, access).select('clients.invite_expires_at').where('clients.invite_token_hash', '=', tokenHash);
  const row = await (lockFor ? lockedForUpdate(query, lockFor) : query).executeTakeFirst();
  return row && { client: toClient(row), expiresAt: row.invite_expires_at };
}

/**
 * A client signed in: its last sign-in, and its first makes it `active` (the invite link spent). `activated` learns,
 * inside the transaction, whether this sign-in was the one that did (of two at once, exactly one is).
 */
export function recordClientSignIn(
  work: UnitOfWork,
  access: Access,
  clientId: string,
  at: string,
  activated: (first: boolean) => void,
): void {
  const client = (query: ReturnType<typeof work.db.updateTable<'clients'>>) =>
    query.where('workspace_id', '=', access.workspaceId).where('id', '=', clientId);
  work.write(client(work.db.updateTable('clients').set({ last_login_date: at })));
  const activation = { status: 'active' as const, first_login_date: at, invite_token_hash: null, invite_expires_at: null, updated_at: at };
  work.writeReturning(
    client(work.db.updateTable('clients').set(activation)).where('status', '<>', 'active').returning('id').compile(),
    (row) => activated(row !== undefined),
  );
}
