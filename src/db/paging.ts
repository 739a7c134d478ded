import { createHmac, timingSafeEqual } from 'node:crypto';
import { type SelectQueryBuilder, sql } from 'kysely';
import type { Access, Caller } from '../lib/caller.js';
import type { Database, DbHandle } from './database.js';
import { errors } from '../lib/errors.js';

/** Keyset position: the last row of the page just served (its created_at, or its sort_key for an ascending list). */
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
 * as `sort_key` (installs, in sidebar order).
 */
export type Keyset = string | { createdAt: string; id: string } | { sortKey: string; id: string };

/**
 * Runs `query` as one page, newest first by the keyset (created_at, id), resuming after the token's
 * position with a row-value comparison `(created_at, id) < (?, ?)`: SQLite and PostgreSQL both plan it
 * as a range of the list's index `(workspace_id, [filter,] created_at, id)`, so a page costs the same at
 * any depth (test/paging-plans.test.ts holds every list to it). `scope` names the list and its filters
 * (see PageTokens). Fetches one row more than the limit to know whether a next page exists, so no page
 * is empty. `toItem` maps each row to what the page serves. With `budget`, a page also ends (with a
 * nextToken) before the row that would take its stored bytes past `budget.bytes` — never before its first
 * row — so no page of free-form JSON grows without bound.
 */
export async function fetchPage<Row extends { created_at: string; id: string }, Item>(
  // biome-ignore lint/suspicious/noExplicitAny: any list's builder (its tables are the caller's business)
  query: SelectQueryBuilder<any, any, Row>,
  keyset: Keyset,
  page: PageRequest,
  tokens: PageTokens,
  scope: string,
  toItem: (row: Row) => Item,
  budget?: PageBudget<Row>,
): Promise<Page<Item>> {
  const limit = page.limit ?? DEFAULT_LIMIT;
  const ascending = typeof keyset !== 'string' && 'sortKey' in keyset;
  const position = typeof keyset === 'string' ? `${keyset}.created_at` : 'sortKey' in keyset ? keyset.sortKey : keyset.createdAt;
  const id = typeof keyset === 'string' ? `${keyset}.id` : keyset.id;
  const direction = ascending ? 'asc' : 'desc';
  let q = query;
  if (page.nextToken) {
    const cursor = tokens.decode(scope, page.nextToken);
    const after = sql.raw(ascending ? '>' : '<');
    q = q.where(sql<boolean>`(${sql.ref(position)}, ${sql.ref(id)}) ${after} (${cursor.createdAt}, ${cursor.id})`);
  }
  const rows = await q
    .orderBy(sql.ref(position), direction)
    .orderBy(sql.ref(id), direction)
    .limit(limit + 1)
    .execute();
  let kept = Math.min(rows.length, limit);
  if (budget) {
    let bytes = 0;
    for (let i = 0; i < kept; i++) {
      bytes += budget.sizeOf(rows[i]);
      if (bytes > budget.bytes && i > 0) kept = i;
    }
  }
  if (rows.length <= kept) return { data: rows.map(toItem) };
  rows.length = kept;
  const last = rows[kept - 1];
  const lastPosition = ascending ? (last as Row & { sort_key: string }).sort_key : last.created_at;
  return { data: rows.map(toItem), nextToken: tokens.encode(scope, { createdAt: lastPosition, id: last.id }) };
}

/** The most stored bytes one page may carry, and how many a row carries. */
export interface PageBudget<Row> {
  bytes: number;
  sizeOf: (row: Row) => number;
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
