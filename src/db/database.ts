import type { CompiledQuery, Kysely } from 'kysely';
import type { DB } from './schema.js';

export type DialectName = 'sqlite' | 'postgres';

/** One open database of either dialect (db/sqlite.ts, db/postgres.ts; opened by db/open.ts). */
export interface Database {
  readonly db: Kysely<DB>;
  readonly dialect: DialectName;
  /** PostgreSQL schema the tables live in (tests isolate each file in its own), if not the default. */
  readonly schema: string | undefined;
  ping(): Promise<void>;
  close(): Promise<void>;
  /**
   * Runs a compiled read as a prepared statement, outside any transaction (see db/prepared.ts):
   * SQLite runs the cached statement at once when no transaction holds the connection; PostgreSQL
   * uses a named statement, parsed once per connection.
   */
  queryPrepared(name: string, text: string, values: readonly unknown[]): Promise<unknown[]>;
  /**
   * Runs compiled writes atomically (the commit of a unit of work, db/unit-of-work.ts). SQLite commits
   * the batches of one event-loop turn together, synchronously, so the one connection is held for
   * microseconds rather than across event-loop turns; PostgreSQL runs each in a transaction.
   */
  writeBatch(queries: readonly CompiledQuery[]): Promise<void>;
}

/** Runs compiled writes in one Kysely transaction: PostgreSQL's batches, and SQLite's while a transaction holds the connection. */
export async function batchInTransaction(db: Kysely<DB>, queries: readonly CompiledQuery[]): Promise<void> {
  await db.transaction().execute(async (trx) => {
    for (const query of queries) await trx.executeQuery(query);
  });
}
