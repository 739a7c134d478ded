import type { Compilable, Kysely } from 'kysely';
import { type ConstraintGuards, constraintError } from './constraints.js';
import { type Database, type Statement, runBatch } from './database.js';
import type { DB } from './schema.js';

/**
 * One change, whole or not at all: what a service uses for every write. Reads go through `db`;
 * writes are queued with `write` and committed together when the service's function returns (or
 * none, when it throws); `onCommit` callbacks run only after a successful commit (outbox wake-ups).
 */
export interface UnitOfWork {
  /** Reads: inside the unit's transaction when it has one, else the shared handle (prepared reads). */
  readonly db: Kysely<DB>;
  /** The database the unit commits to (what an onCommit wake-up names). */
  readonly database: Database;
  /**
   * Queues a write: a statement bound from a `preparedWrite` (hot paths) or a Kysely query (compiled at
   * once); `guards` name the constraints it may violate and the subject their error quotes.
   */
  write(query: Statement | Compilable<unknown>, guards?: ConstraintGuards): void;
  /**
   * Queues a write whose answer the change needs (a counter's next value, by RETURNING): `then` gets its
   * row inside the commit, right after it ran, and may queue more writes, which run next in the same
   * transaction. So a numbered row still commits in one batch (group commit on SQLite), with no lock held
   * across event-loop turns. What `then` returns is read, once the unit has committed, by the function
   * returned.
   */
  writeReturning<T>(statement: Statement, then: (row: Record<string, unknown> | undefined) => T, guards?: ConstraintGuards): () => T;
  /** Runs after the commit succeeded; never for a change that was rolled back. */
  onCommit(fn: () => void): void;
}

export interface UnitOptions {
  /**
   * Read-modify-write: run the reads inside the transaction too, so what was read cannot change
   * before the commit (PATCH, PUT, DELETE). Without it the reads run first, outside, and the writes
   * commit as one batch (group commit on SQLite); constraints guard what could change in between.
   */
  transaction?: boolean;
}

class Work implements UnitOfWork {
  readonly writes: Statement[] = [];
  readonly guards: ConstraintGuards = {};
  readonly callbacks: (() => void)[] = [];
  constructor(
    readonly database: Database,
    readonly db: Kysely<DB>,
  ) {}
  write(query: Statement | Compilable<unknown>, guards?: ConstraintGuards) {
    this.writes.push('compile' in query ? query.compile() : query);
    if (guards) Object.assign(this.guards, guards);
  }
  writeReturning<T>(statement: Statement, then: (row: Record<string, unknown> | undefined) => T, guards?: ConstraintGuards) {
    let result: { value: T } | undefined;
    this.writes.push({
      ...statement,
      onRow: (row) => {
        result = { value: then(row) };
      },
    });
    if (guards) Object.assign(this.guards, guards);
    return () => {
      if (!result) throw new Error(`${statement.name ?? 'a write'}: its answer was read before the unit committed`);
      return result.value;
    };
  }
  onCommit(fn: () => void) {
    this.callbacks.push(fn);
  }
}

/** Runs `fn` as one unit of work and commits its writes; a declared constraint's violation becomes its API error. */
export async function unitOfWork<T>(database: Database, fn: (work: UnitOfWork) => Promise<T>, options: UnitOptions = {}): Promise<T> {
  let work: Work | undefined;
  let result: T;
  try {
    if (options.transaction) {
      result = await database.db.transaction().execute(async (trx) => {
        work = new Work(database, trx);
        const value = await fn(work);
        await runBatch(trx, work.writes);
        return value;
      });
    } else {
      work = new Work(database, database.db);
      result = await fn(work);
      if (work.writes.length > 0) await database.writeBatch(work.writes);
    }
  } catch (error) {
    throw (work && constraintError(error, work.guards)) ?? error;
  }
  for (const callback of work?.callbacks ?? []) callback();
  return result;
}
