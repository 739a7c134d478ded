import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { CompiledQuery, type DatabaseConnection, Kysely, SqliteDialect, type SqliteDialectConfig, SqliteDriver } from 'kysely';
import { type Database, type OpenOptions, type PendingBatch, type Statement, batchInTransaction } from './database.js';
import { rowMaker } from './row-maker.js';
import type { DB } from './schema.js';
import { startCheckpointer } from './sqlite-checkpointer.js';

/**
 * better-sqlite3 compiles a statement on every `prepare`; Kysely calls `prepare` for each query.
 * Caching statements by SQL text makes every repeated query a prepared statement; a read's entry holds its row
 * reader too (`rowReader`), so each text is prepared once.
 */
function withStatementCache(raw: SqliteDatabase.Database, max = 500) {
  const cache = new Map<string, { statement: SqliteDatabase.Statement; read?: RowReader }>();
  const entryOf = (text: string) => {
    let entry = cache.get(text);
    if (entry === undefined) {
      entry = { statement: raw.prepare(text) };
      if (cache.size >= max) cache.delete(cache.keys().next().value as string);
      cache.set(text, entry);
    }
    return entry;
  };
  return {
    close: () => raw.close(),
    prepare: (text: string) => entryOf(text).statement,
    /** The rows of a statement that returns rows, built by `rowReader`. */
    reader(text: string): RowReader {
      const entry = entryOf(text);
      entry.read ??= rowReader(entry.statement);
      return entry.read;
    },
  };
}

type RowReader = (values: readonly unknown[]) => unknown[];

/**
 * Reads, their rows built here (the prepared reads of `queryPrepared`, every list page and point read, and Kysely's
 * own, through `forKysely`): better-sqlite3 builds each row as a dictionary, property by property (about 5 µs a row
 * of 20 columns); read as an array of values and made an object by a literal of the statement's own columns
 * (db/row-maker.ts), a row costs less than half of that. The statement gives arrays only for this call (`raw` is a
 * flag on it), so its other callers still get objects. A statement whose rows come back with another number of columns
 * (its table changed under it: SQLite prepares it again) has its columns read again.
 */
function rowReader(statement: SqliteDatabase.Statement): RowReader {
  let columns = statement.columns().map((column) => column.name);
  let rowOf = rowMaker(columns);
  return (values) => {
    statement.raw(true);
    let rows: unknown[][];
    try {
      rows = statement.all(...values) as unknown[][];
    } finally {
      statement.raw(false);
    }
    if (rows.length > 0 && rows[0].length !== columns.length) {
      columns = statement.columns().map((column) => column.name);
      rowOf = rowMaker(columns);
    }
    return rows.map(rowOf);
  };
}

/** The statements as Kysely's driver takes them, its reads' rows made by `rowReader`. */
function forKysely(statements: ReturnType<typeof withStatementCache>): SqliteDialectConfig['database'] {
  return {
    close: statements.close,
    prepare(text: string) {
      const statement = statements.prepare(text);
      if (!statement.reader) return statement;
      const read = statements.reader(text);
      return {
        reader: true,
        all: (parameters) => read(parameters),
        run: (parameters) => statement.run(...parameters),
        iterate: (parameters) => statement.iterate(...parameters),
      };
    },
  };
}

/**
 * Kysely's SQLite driver, counting who holds the one connection (a transaction holds it throughout). Its
 * transactions are the read-modify-write units, so they begin IMMEDIATE: they take the write lock before their first
 * read, waiting busy_timeout for another process's (the `portal` CLI beside a server). Kysely's deferred `begin` reads
 * first and asks for the lock at the first write; when another process had committed meanwhile, SQLite refuses that
 * at once ("database is locked"), without waiting.
 */
class TrackedSqliteDriver extends SqliteDriver {
  held = 0;
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
  override async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await super.acquireConnection();
    this.held++;
    return connection;
  }
  override async releaseConnection(): Promise<void> {
    this.held--;
    await super.releaseConnection();
  }
}

class TrackedSqliteDialect extends SqliteDialect {
  readonly driver: TrackedSqliteDriver;
  constructor(config: SqliteDialectConfig) {
    super(config);
    this.driver = new TrackedSqliteDriver(config);
  }
  override createDriver() {
    return this.driver;
  }
}

/**
 * Group commit for SQLite: the write batches of every request handled in one event-loop turn are
 * committed together, so one commit writes each shared page (index tails, the WAL header) once per group
 * instead of once per request. Callers are answered only after the commit.
 *
 * Optimistic: the group runs as one plain transaction. A savepoint per batch would let a failing batch
 * (a taken email) roll back alone, but costs as much as a row (bench/write-path.ts: 28 µs of a client
 * creation's 106), and failures are rare; so when a batch fails, the group is rolled back and run again
 * with each batch in its own savepoint, and only the failing one is rejected. Transaction control runs as
 * statements prepared once.
 */
function groupCommit(
  raw: SqliteDatabase.Database,
  statements: ReturnType<typeof withStatementCache>,
  driver: TrackedSqliteDriver,
  fallback: (statements: readonly Statement[]) => Promise<void>,
) {
  const control = (text: string) => raw.prepare(text);
  const begin = control('BEGIN IMMEDIATE');
  const commit = control('COMMIT');
  const rollback = control('ROLLBACK');
  const savepoint = control('SAVEPOINT batch');
  const release = control('RELEASE batch');
  const rollbackToSavepoint = control('ROLLBACK TO batch');
  const run = (batch: PendingBatch) => {
    batch.statements.length = batch.queued; // a second run: without what the first one's onRow added
    // By index: a write's `onRow` may add writes to its batch (Statement.onRow).
    for (let i = 0; i < batch.statements.length; i++) {
      const { sql, parameters, onRow } = batch.statements[i];
      if (onRow) onRow(statements.prepare(sql).get(...parameters) as Record<string, unknown> | undefined);
      else statements.prepare(sql).run(...parameters);
    }
  };

  /** Runs the group in one transaction, each batch in a savepoint; which batches failed. */
  const runApart = (group: PendingBatch[]) => {
    const failures = new Map<PendingBatch, unknown>();
    begin.run();
    for (const batch of group) {
      savepoint.run();
      try {
        run(batch);
        release.run();
      } catch (error) {
        rollbackToSavepoint.run();
        release.run();
        failures.set(batch, error);
      }
    }
    commit.run();
    return failures;
  };

  let pending: PendingBatch[] = [];
  const flush = () => {
    const group = pending;
    pending = [];
    // A Kysely transaction holds the connection now: queue behind it like any other query.
    if (driver.held > 0 || !raw.open) {
      for (const batch of group) fallback(batch.statements).then(batch.resolve, batch.reject);
      return;
    }
    let failures = new Map<PendingBatch, unknown>();
    try {
      try {
        begin.run();
        for (const batch of group) run(batch);
        commit.run();
      } catch (error) {
        if (raw.inTransaction) rollback.run();
        if (group.length === 1) throw error;
        failures = runApart(group);
      }
    } catch (error) {
      if (raw.inTransaction) rollback.run();
      for (const batch of group) batch.reject(error);
      return;
    }
    for (const batch of group) failures.has(batch) ? batch.reject(failures.get(batch)) : batch.resolve();
  };
  return (batch: readonly Statement[]) =>
    new Promise<void>((resolve, reject) => {
      // The unit's own array (UnitOfWork's writes): its onRow writes are pushed onto it.
      const statements = batch as Statement[];
      if (pending.push({ statements, queued: statements.length, resolve, reject }) === 1) setImmediate(flush);
    });
}

/** A WAL this long (16 MiB of 4 KiB pages) is checkpointed by the commit that reaches it, and so starts over. */
const WAL_RESTART_PAGES = 4096;
/** Bytes a WAL file is cut back to when it starts over. */
const WAL_FILE_LIMIT = 64 * 1024 * 1024;

/** The main connection's page cache, KiB. */
const PAGE_CACHE_KIB = 4096;

export function openSqlite(url: string, { image }: OpenOptions = {}): Database {
  const path = url.slice('sqlite:'.length) || ':memory:';
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  if (image && path !== ':memory:') throw new Error('an image opens an in-memory database only');
  const raw = new SqliteDatabase(image ?? path);
  raw.pragma('busy_timeout = 5000'); // first: switching a new file to WAL waits for another process's lock too
  raw.pragma('journal_mode = WAL');
  raw.pragma('synchronous = NORMAL');
  raw.pragma('foreign_keys = ON');
  // SQLite's page cache, 16 MB as better-sqlite3 builds it, held for good once full (a first start that clears
  // an import's backlog fills it): 4 MB keep what requests read again (indexes' upper levels, hot rows) and a
  // group commit's pages; the rest comes from the operating system's cache.
  raw.pragma(`cache_size = -${PAGE_CACHE_KIB}`);
  // On a file, WAL checkpoints run on a worker thread (while the database is written) instead of inside a request's
  // commit. But the worker's (PASSIVE) checkpoints never start the WAL over: under sustained writes it grew without
  // bound (1.9 GB in ten seconds of creating clients). So a commit that takes the WAL past WAL_RESTART_PAGES
  // checkpoints it too, mostly copied by then: the next write starts the WAL over. A WAL file left longer than
  // WAL_FILE_LIMIT by a long reader is cut back to it then.
  if (path !== ':memory:') {
    raw.pragma(`wal_autocheckpoint = ${WAL_RESTART_PAGES}`);
    raw.pragma(`journal_size_limit = ${WAL_FILE_LIMIT}`);
  }
  const totalChanges = raw.prepare('select total_changes()').pluck();
  const checkpointer = path === ':memory:' ? undefined : startCheckpointer(path, () => totalChanges.get() as number);
  const statements = withStatementCache(raw);
  const dialect = new TrackedSqliteDialect({ database: forKysely(statements) });
  const db = new Kysely<DB>({ dialect });
  return {
    db,
    dialect: 'sqlite',
    schema: undefined,
    async ping() {
      raw.prepare('select 1').get();
    },
    async close() {
      await checkpointer?.stop();
      await db.destroy();
    },
    async queryPrepared(_name, text, values) {
      // Synchronous, so nothing can start a transaction meanwhile; while one is open, wait for it
      // like any other query (reading beside it would see its uncommitted rows).
      if (dialect.driver.held === 0 && raw.open) return statements.reader(text)(values);
      return (await db.executeQuery(CompiledQuery.raw(text, [...values]))).rows;
    },
    writeBatch: groupCommit(raw, statements, dialect.driver, (queries) => batchInTransaction(db, queries)),
  };
}
