import { createHmac, timingSafeEqual } from 'node:crypto';
import { type SelectQueryBuilder, sql } from 'kysely';
import type { Access, Caller } from '../lib/caller.js';
import type { Database, DbHandle } from './database.js';
import { preparedQuery } from './prepared.js';
import { errors } from '../lib/errors.js';

/** Keyset position: the last row of the page just served (its created_at, or the position its keyset names: a sort_key…). */
interface Cursor {
  createdAt: string;
  id: string;
}

export interface PageRequest {
  limit?: number;
  nextToken?: string;
}

/** A page as the API answers it (contract §4): `nextToken` only when another page exists. */
export interface Page<T> {
  data: T[];
  nextToken?: string;
}

const DEFAULT_LIMIT = 100;

/**
 * Page tokens are base64 of JSON `{c, i, s}`: the keyset position and an HMAC over it and the list's
 * scope (workspace, list name, filters). A token edited by hand, or made for another workspace or
 * another list, fails the HMAC and is a 400.
 */
export class PageTokens {
  constructor(private readonly secret: string) {}

  private sign(scope: string, cursor: Cursor): string {
    return createHmac('sha256', this.secret).update(`${scope}\n${cursor.createdAt}\n${cursor.id}`).digest('base64url');
  }

  encode(scope: string, cursor: Cursor): string {
    return Buffer.from(JSON.stringify({ c: cursor.createdAt, i: cursor.id, s: this.sign(scope, cursor) })).toString('base64');
  }

  decode(scope: string, token: string): Cursor {
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.from(token, 'base64').toString('utf8'));
    } catch {
      throw invalidToken();
    }
    const { c, i, s } = (parsed ?? {}) as Record<string, unknown>;
    if (typeof c !== 'string' || typeof i !== 'string' || typeof s !== 'string') throw invalidToken();
    const cursor = { createdAt: c, id: i };
    const expected = Buffer.from(this.sign(scope, cursor));
    const given = Buffer.from(s);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalidToken();
    return cursor;
  }
}

const invalidToken = () => errors.invalidField('query.nextToken', 'is not a page token of this list');

/**
 * The columns a list is ordered by: newest first by `<table>.created_at, <table>.id`, or by other
 * columns holding them (a join's); or `{ sortKey, id }`: ascending by a text position the rows carry
 * as `sort_key` (installs, in sidebar order); or `{ descendingBy, id, rowKey }`: newest first by another
 * text position, which the rows carry as `rowKey` (message channels by their last activity).
 */
export type Keyset =
  | string
  | { createdAt: string; id: string }
  | { sortKey: string; id: string }
  | { descendingBy: string; id: string; rowKey: string };

/** Where a keyset's position and id are, which way it runs, and the row's field holding the position. */
function keysetOf(keyset: Keyset) {
  if (typeof keyset === 'string') return { ascending: false, position: `${keyset}.created_at`, id: `${keyset}.id`, rowKey: 'created_at' };
  if ('sortKey' in keyset) return { ascending: true, position: keyset.sortKey, id: keyset.id, rowKey: 'sort_key' };
  if ('descendingBy' in keyset) return { ascending: false, position: keyset.descendingBy, id: keyset.id, rowKey: keyset.rowKey };
  return { ascending: false, position: keyset.createdAt, id: keyset.id, rowKey: 'created_at' };
}

/** `query` ordered by the keyset, after `cursor` when given, `limit` rows at most (one more than a page: is there another?). */
// biome-ignore lint/suspicious/noExplicitAny: any list's builder
function pageQuery<Q extends SelectQueryBuilder<any, any, any>>(query: Q, keyset: Keyset, cursor: Cursor | undefined, limit: unknown): Q {
  const { ascending, position, id } = keysetOf(keyset);
  const direction = ascending ? 'asc' : 'desc';
  let q = query;
  if (cursor) {
    const after = sql.raw(ascending ? '>' : '<');
    q = q.where(sql<boolean>`(${sql.ref(position)}, ${sql.ref(id)}) ${after} (${cursor.createdAt}, ${cursor.id})`) as Q;
  }
  return q
    .orderBy(sql.ref(position), direction)
    .orderBy(sql.ref(id), direction)
    .limit(limit as number) as Q;
}

/**
 * The most stored text one page carries: a page ends early, with a nextToken, before the row that would take
 * it past this many characters of its rows' text columns (JSON held as text included), never before its
 * first row. So no list answers more than a few MiB, whatever its rows hold (1,000 messages of 10,000
 * characters are three pages, not one answer of 10 MB), and a few concurrent pages cannot exhaust memory.
 */
export const PAGE_TEXT_BUDGET = 4 * 1024 * 1024;

/**
 * A row's stored text, cheaply: the sum of its string columns' lengths (a few additions per column, no
 * serialization), which is what a page's answer grows with; numbers, booleans and nulls are a few bytes each.
 * Compiled once per set of columns (the names of a page's columns, read from its first row), each column read by its
 * literal name: the rows of a statement share one shape, so the reads are direct, where a loop over the names made a
 * lookup by name per column (2 % of the page of 100's CPU; enumerating each row's own keys cost four times that).
 */
const textLengths = new Map<string, (row: object) => number>();
function textLengthOf(columns: readonly string[]): (row: object) => number {
  const key = columns.join(',');
  let textLength = textLengths.get(key);
  if (!textLength) {
    const terms = columns.map((column) => ` + (typeof (v = row[${JSON.stringify(column)}]) === 'string' ? v.length : 0)`);
    textLength = new Function('row', `let v; return 0${terms.join('')};`) as (row: object) => number;
    textLengths.set(key, textLength);
  }
  return textLength;
}

/**
 * The pages pageOf made, whose items are the request's own: emptied once their bytes are made (`releaseServedPage`,
 * called by the response serializers, plugins/validation.ts). A request that waits on the database (PostgreSQL's pool:
 * 50 requests in flight for 10 connections) holds promises made before the wait, which V8 has often promoted to the
 * old generation by the time they resolve with the page. A dead old object that points at young ones keeps them alive
 * through every scavenge until the next mark-compact: the page's rows, items and strings were copied and then promoted,
 * 800 KB a scavenge, and the page of 100 cost 2.4 times the naive server's CPU (bench/README.md, 2026-11-30). Emptied,
 * the page leaves those promises pointing at an empty array. A page a service builds otherwise, or shares, is left as it is.
 */
const madePages = new WeakSet<object>();

/** Whether `payload` is a page made by pageOf (its items no one else holds). */
export const isMadePage = (payload: unknown): payload is Page<unknown> =>
  typeof payload === 'object' && payload !== null && madePages.has(payload);

/** A page pageOf made, emptied once serialized (why: madePages); any other payload is left as it is. */
export function releaseServedPage(payload: unknown): void {
  if (isMadePage(payload)) payload.data.length = 0;
}

/** The page of the rows read (limit + 1 at most): its items, and a nextToken when more follow or the page's text budget is spent. */
function pageOf<Row extends { created_at: string; id: string }, Item>(
  rows: Row[],
  limit: number,
  keyset: Keyset,
  tokens: PageTokens,
  scope: string,
  toItem: (row: Row) => Item,
): Page<Item> {
  let kept = Math.min(rows.length, limit);
  let length = 0;
  const textLength = textLengthOf(kept > 0 ? Object.keys(rows[0]) : []);
  for (let i = 0; i < kept; i++) {
    length += textLength(rows[i]);
    if (length > PAGE_TEXT_BUDGET && i > 0) kept = i;
  }
  const more = rows.length > kept;
  rows.length = kept;
  const last = rows[kept - 1];
  const page: Page<Item> = { data: rows.map(toItem) };
  if (more)
    page.nextToken = tokens.encode(scope, { createdAt: (last as unknown as Record<string, string>)[keysetOf(keyset).rowKey], id: last.id });
  // The rows emptied once mapped: the promise that brought them (made before a wait on PostgreSQL's pool, so often in
  // the old generation) must not keep them alive (madePages).
  rows.length = 0;
  madePages.add(page);
  return page;
}

/**
 * Runs `query` as one page, newest first by the keyset (created_at, id), resuming after the token's
 * position with a row-value comparison `(created_at, id) < (?, ?)`: SQLite and PostgreSQL both plan it
 * as a range of the list's index `(workspace_id, [filter,] created_at, id)`, so a page costs the same at
 * any depth (test/paging-plans.test.ts holds every list to it). `scope` names the list and its filters
 * (see PageTokens). Fetches one row more than the limit to know whether a next page exists, so no page
 * is empty. `toItem` maps each row to what the page serves. A page also ends (with a nextToken) before
 * the row that would take its text past PAGE_TEXT_BUDGET, never before its first row.
 */
export async function fetchPage<Row extends { created_at: string; id: string }, Item>(
  // biome-ignore lint/suspicious/noExplicitAny: any list's builder (its tables are the caller's business)
  query: SelectQueryBuilder<any, any, Row>,
  keyset: Keyset,
  page: PageRequest,
  tokens: PageTokens,
  scope: string,
  toItem: (row: Row) => Item,
): Promise<Page<Item>> {
  const limit = page.limit ?? DEFAULT_LIMIT;
  const cursor = page.nextToken ? tokens.decode(scope, page.nextToken) : undefined;
  const rows = await pageQuery(query, keyset, cursor, limit + 1).execute();
  return pageOf(rows, limit, keyset, tokens, scope, toItem);
}

/** The values a prepared list's query is built from: scalars, each a parameter of the statement. */
type ListParams = Record<string, string | number | undefined>;

/**
 * A list whose query is written once and compiled once per shape and dialect (see preparedQuery): the
 * shape is which of `params` are given and whether the page follows a cursor, so the query of a page
 * builds and compiles nothing at run time, and runs as a prepared statement. `build` must branch on
 * which params are given only, and use their values as they are (it is first called with placeholders).
 * Paging (and the text budget) as fetchPage.
 */
export function preparedList<P extends ListParams, Row extends { created_at: string; id: string }, Item>(
  name: string,
  // biome-ignore lint/suspicious/noExplicitAny: any list's builder (its tables are the caller's business)
  build: (db: DbHandle, params: P) => SelectQueryBuilder<any, any, Row>,
  keyset: Keyset,
  toItem: (row: Row) => Item,
) {
  type Bound = P & { limit: number; afterPosition?: string; afterId?: string };
  const shapes = new Map<string, ReturnType<typeof preparedQuery<Bound, Row>>>();
  return async function list(db: DbHandle, params: P, page: PageRequest, tokens: PageTokens, scope: string): Promise<Page<Item>> {
    const limit = page.limit ?? DEFAULT_LIMIT;
    const cursor = page.nextToken ? tokens.decode(scope, page.nextToken) : undefined;
    const given: Record<string, unknown> = { limit: limit + 1 };
    for (const key of Object.keys(params)) if (params[key] !== undefined) given[key] = params[key];
    if (cursor) Object.assign(given, { afterPosition: cursor.createdAt, afterId: cursor.id });
    const shape = Object.keys(given).join(',');
    let query = shapes.get(shape);
    if (!query) {
      // Named by its number: a PostgreSQL statement name is at most 63 characters.
      query = preparedQuery(`${name}#${shapes.size}`, (qb, p: Bound) =>
        pageQuery(
          build(qb, p),
          keyset,
          p.afterPosition === undefined ? undefined : { createdAt: p.afterPosition, id: p.afterId as string },
          p.limit,
        ),
      );
      shapes.set(shape, query);
    }
    return pageOf(await query.all(db, given as Bound), limit, keyset, tokens, scope, toItem);
  };
}

/**
 * A stable scope for a list: who reads it (workspace, and the client or companies a principal is limited
 * to) and its filters (undefined ones left out), as JSON so that no value can pose as another filter.
 */
export function pageScope(access: PagingAccess, list: string, filters: Record<string, unknown> = {}): string {
  const given = Object.keys(filters)
    .filter((k) => filters[k] !== undefined)
    .sort()
    .map((k) => [k, filters[k]]);
  return JSON.stringify([access.workspaceId, access.clientId, access.companyIds, list, given]);
}

/** The part of an Access a page token is bound to. */
interface PagingAccess {
  workspaceId: string;
  clientId: string | null;
  companyIds: readonly string[] | null;
}

/**
 * A repository's list served to a caller, as a service function: the database's handle and the caller's
 * access are all a plain list adds (`export const listX = listAs(repo.listX)`).
 */
export function listAs<Query, Item>(
  list: (db: DbHandle, access: Access, query: Query, tokens: PageTokens) => Promise<Page<Item>>,
): (database: Database, caller: Caller, query: Query, tokens: PageTokens) => Promise<Page<Item>> {
  return (database, caller, query, tokens) => list(database.db, caller.access, query, tokens);
}
