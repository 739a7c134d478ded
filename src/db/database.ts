import { CompiledQuery, type Kysely } from 'kysely';
import type { DB } from './schema.js';

export type DialectName = 'sqlite' | 'postgres';

/** A handle to build queries on (the database's or a transaction's): services pass it along, repositories query it. */
export type DbHandle = Kysely<DB>;

/** A write ready to run: its SQL text and values (a Kysely CompiledQuery is one), named when prepared (db/prepared.ts). */
export interface Statement {
  readonly sql: string;
  readonly parameters: readonly unknown[];
  /** Set on prepared statements: PostgreSQL parses a named statement once per connection. */
  readonly name?: string;
  /**
   * Set on a write whose answer the change needs (a counter's next value, by RETURNING): called with its
   * first row inside the commit, right after it ran; it may queue more writes on the batch, which run
   * next, in the same transaction (UnitOfWork.writeReturning).
   */
  readonly onRow?: (row: Record<string, unknown> | undefined) => void;
}

/** A unit of work's writes waiting for its group's commit (db/sqlite.ts and db/postgres.ts group commits). */
export interface PendingBatch {
  /** The unit's writes; they may grow as they run (Statement.onRow). */
  statements: Statement[];
  /** How many it had when queued: what a second run starts from. */
  queued: number;
  resolve(): void;
  reject(error: unknown): void;
}

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
  writeBatch(statements: readonly Statement[]): Promise<void>;
  /** PostgreSQL's connection pool right now (metrics); SQLite has one connection and no pool. */
  poolStats?(): PoolStats;
  /** PostgreSQL: where a pooled connection's failure while idle is reported (the app logs it; until then, stderr). */
  watchPoolErrors?(listener: (error: Error) => void): void;
}

/** How a database is opened: PostgreSQL's pool size per process (DATABASE_POOL_MAX). */
export interface OpenOptions {
  poolMax?: number;
  /**
   * SQLite in memory: the database starts as this image of a database file (in rollback-journal mode) instead of
   * empty. The tests' harness starts every in-memory database from one migrated image instead of migrating each.
   */
  image?: Buffer;
}

interface PoolStats {
  /** Connections open, idle among them, and requests waiting for one; `max` is the pool's size. */
  total: number;
  idle: number;
  waiting: number;
  max: number;
}

/** Runs a batch's writes in order through a transaction's handle; the batch may grow as they run (Statement.onRow). */
export async function runBatch(trx: Kysely<DB>, statements: readonly Statement[]): Promise<void> {
  for (let i = 0; i < statements.length; i++) {
    const { sql, parameters, onRow } = statements[i];
    const { rows } = await trx.executeQuery(CompiledQuery.raw(sql, [...parameters]));
    onRow?.(rows[0] as Record<string, unknown> | undefined);
  }
}

/** Runs writes in one Kysely transaction: SQLite's batches while a transaction holds the connection. */
export async function batchInTransaction(db: Kysely<DB>, statements: readonly Statement[]): Promise<void> {
  await db.transaction().execute((trx) => runBatch(trx, statements));
}
