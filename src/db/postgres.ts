import { Kysely, PostgresDialect, sql } from 'kysely';
import { createRequire } from 'node:module';
import type pg from 'pg';
import type { Database, OpenOptions, PendingBatch, Statement } from './database.js';
import { mergeInserts, onlyMergeableInserts } from './merged-inserts.js';
import { type RowMaker, rowMaker } from './row-maker.js';
import type { DB } from './schema.js';

/** How many groups commit at once, each on its own pooled connection; the rest of the pool serves reads. */
const GROUPS_IN_FLIGHT = 2;

/** Runs a unit's writes on `client` (inside a transaction), merged into multi-row inserts where it can. */
async function runBatch(client: pg.PoolClient, batch: PendingBatch): Promise<void> {
  batch.statements.length = batch.queued; // a second run: without what the first one's onRow added
  await runStatements(client, mergeInserts(batch.statements));
}

async function runStatements(client: pg.PoolClient, statements: readonly Statement[]): Promise<void> {
  // By index: a write's `onRow` may add writes to the batch.
  for (let i = 0; i < statements.length; i++) await run(client, statements[i]);
}

async function run(client: pg.PoolClient, { name, sql, parameters, onRow }: Statement): Promise<void> {
  const { rows } = await client.query({ name, text: sql, values: [...parameters] });
  onRow?.(rows[0]); // may push more writes onto its batch (Statement.onRow)
}

/**
 * Runs a unit's writes until what is left of them (its onRow writes included) is plain inserts, and adds
 * those to `mergeable`, to run with the group's: an invoice runs its counter's upsert here, and its row and
 * audit entry are merged with the other units' rows.
 */
async function runUntilMergeable(client: pg.PoolClient, batch: PendingBatch, mergeable: Statement[]): Promise<void> {
  const statements = batch.statements;
  statements.length = batch.queued;
  let i = 0;
  for (; i < statements.length && !onlyMergeableInserts(statements.slice(i)); i++) await run(client, statements[i]);
  for (; i < statements.length; i++) mergeable.push(statements[i]);
}

/**
 * Group commit for PostgreSQL: the units that finish while GROUPS_IN_FLIGHT groups are committing wait
 * and then commit together, in one transaction: one BEGIN and one COMMIT (one WAL flush) for the group,
 * and the plain inserts of all its units merged table by table (db/merged-inserts.ts), where each unit
 * alone paid a round trip per statement. Optimistic, as on SQLite: when a statement fails, the group is
 * rolled back and run again with each unit in its own savepoint, and only the failing unit is rejected.
 * A unit's writes that cannot be merged (a RETURNING, an update) run first, in order, inside the group.
 */
function groupCommit(pool: pg.Pool) {
  let pending: PendingBatch[] = [];
  let inFlight = 0;

  async function commitGroup(group: PendingBatch[]): Promise<Map<PendingBatch, unknown>> {
    const client = await pool.connect();
    let broken: Error | undefined;
    const rollback = () =>
      client.query('ROLLBACK').catch((error: Error) => {
        broken = error; // the connection is unusable: drop it rather than return it to the pool
      });
    try {
      try {
        await client.query('BEGIN');
        const mergeable: Statement[] = [];
        for (const batch of group) await runUntilMergeable(client, batch, mergeable);
        await runStatements(client, mergeInserts(mergeable));
        await client.query('COMMIT');
        return new Map();
      } catch (error) {
        await rollback();
        if (group.length === 1 || broken) throw error;
      }
      // Again, each unit in a savepoint: which ones failed.
      const failures = new Map<PendingBatch, unknown>();
      await client.query('BEGIN');
      for (const batch of group) {
        await client.query('SAVEPOINT batch');
        try {
          await runBatch(client, batch);
          await client.query('RELEASE batch');
        } catch (error) {
          await client.query('ROLLBACK TO batch');
          failures.set(batch, error);
        }
      }
      await client.query('COMMIT');
      return failures;
    } catch (error) {
      if (!broken) await rollback();
      throw error;
    } finally {
      client.release(broken);
    }
  }

  function flush() {
    // Another flush took the group, or every slot is busy (a finishing group flushes what waits).
    if (pending.length === 0 || inFlight >= GROUPS_IN_FLIGHT) return;
    const group = pending;
    pending = [];
    inFlight++;
    commitGroup(group)
      .then(
        (failures) => {
          for (const batch of group) failures.has(batch) ? batch.reject(failures.get(batch)) : batch.resolve();
        },
        (error) => {
          for (const batch of group) batch.reject(error);
        },
      )
      .finally(() => {
        inFlight--;
        if (pending.length > 0) flush();
      });
  }

  return (batch: readonly Statement[]) =>
    new Promise<void>((resolve, reject) => {
      // The unit's own array (UnitOfWork's writes): its onRow writes are pushed onto it.
      const statements = batch as Statement[];
      // The first unit of a turn schedules the flush; with every slot busy, the group waits for one.
      if (pending.push({ statements, queued: statements.length, resolve, reject }) === 1 && inFlight < GROUPS_IN_FLIGHT)
        setImmediate(flush);
    });
}

/** What a prepared read's rows are made with, per statement: its row maker, and the type parser of each column pg parses. */
interface StatementRows {
  make: RowMaker;
  /** Each column's dataTypeID: a result whose columns differ (its table changed) has its maker and parsers made again. */
  types: number[];
  /** The columns pg would parse (numbers, dates…), with their parser; text columns are the message's strings as they are. */
  parsed: { column: number; parse: (text: string) => unknown }[];
}

type PgField = { name: string; dataTypeID: number; format: string };
type PgQueryInternals = { _canceledDueToError: unknown };

/**
 * The prepared reads' rows (every list page and point read): made by a literal of the statement's columns
 * (db/row-maker.ts) straight from each DataRow message's strings, in a query of pg's own (it prepares, binds and
 * describes as ever) whose two row handlers are these. pg's own made every result's type parsers again (its Result's
 * addFields), each row an array and then an object key by key in one function for every statement's columns, and
 * emitted a 'row' event per row: a page of 100 clients took 149 µs there against 38 in a server reading one table
 * (bench/README.md, 2026-11-29), and the arrays, the parsers and the events were 5 % of the page's CPU after
 * (2026-12-01 (morning)). A statement's name stands for its text (PostgreSQL refuses a name prepared again with another).
 */
function preparedReads(driver: typeof pg) {
  const statements = new Map<string, StatementRows>();
  const textParser = driver.types.getTypeParser(25, 'text');

  function rowsOf(name: string, fields: PgField[]): StatementRows {
    const known = statements.get(name);
    if (known?.types.length === fields.length && fields.every((field, i) => field.dataTypeID === known.types[i])) return known;
    const parsed: StatementRows['parsed'] = [];
    for (const [column, field] of fields.entries()) {
      const parse = driver.types.getTypeParser(field.dataTypeID, field.format === 'binary' ? 'binary' : 'text') as (
        text: string,
      ) => unknown;
      if (parse !== textParser) parsed.push({ column, parse });
    }
    const made = { make: rowMaker(fields.map((field) => field.name)), types: fields.map((field) => field.dataTypeID), parsed };
    statements.set(name, made);
    return made;
  }

  return class PreparedRead extends driver.Query {
    private statement: StatementRows | undefined;
    // Not `rows`: pg's Query reads its own `rows` (a portal's batch size).
    private made: unknown[] = [];

    /** Given its text, not a config: pg copies a config object property by property (1.8 % of a page's CPU). */
    constructor(name: string, text: string, values: unknown[]) {
      super(text, values);
      (this as unknown as { name: string }).name = name;
    }

    handleRowDescription(message: { fields: PgField[] }): void {
      this.statement = rowsOf((this as unknown as { name: string }).name, message.fields);
      // Made here, once the pool gave a connection, not with the query: made before a wait on the pool, it is often
      // promoted by the time rows arrive, and an old array keeps every young row it holds alive until a mark-compact.
      this.made = [];
    }

    handleDataRow(message: { fields: (string | null)[] }): void {
      const internals = this as unknown as PgQueryInternals;
      const statement = this.statement;
      if (internals._canceledDueToError || !statement) return;
      const values: unknown[] = message.fields;
      try {
        for (const { column, parse } of statement.parsed) if (values[column] !== null) values[column] = parse(values[column] as string);
      } catch (error) {
        internals._canceledDueToError = error; // as pg's own: the query fails when the server is done with it
        return;
      }
      this.made.push(statement.make(values));
    }

    /** The rows read, handed over once: nothing made before the wait keeps them after. */
    takeRows(): unknown[] {
      const made = this.made;
      this.made = [];
      return made;
    }
  };
}

/** Connections per process unless DATABASE_POOL_MAX says otherwise (docs/operations.md sizes it against max_connections). */
const DEFAULT_POOL_MAX = 10;

/**
 * A DATABASE_URL as the driver takes it, and the schema it names: `?schema=name` (ours, not libpq's) puts every table
 * in that schema, used to isolate test runs.
 */
export function postgresConnection(url: string): { connectionString: string; schema: string | undefined } {
  const parsed = new URL(url);
  const schema = parsed.searchParams.get('schema') ?? undefined;
  parsed.searchParams.delete('schema');
  if (schema !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) throw new Error(`invalid schema name "${schema}"`);
  return { connectionString: parsed.toString(), schema };
}

export function openPostgres(url: string, options: OpenOptions = {}): Database {
  const { connectionString, schema } = postgresConnection(url);
  const max = options.poolMax ?? DEFAULT_POOL_MAX;
  // Required here, not imported: a process on SQLite never loads the driver.
  const driver = createRequire(import.meta.url)('pg') as typeof pg;
  const { Pool } = driver;
  const pool = new Pool({
    connectionString,
    max,
    connectionTimeoutMillis: 5000,
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  });
  // An idle client losing its connection (a restarted server, a killed backend) must not crash the process: the pool
  // drops it and the next query opens another. It is reported, not swallowed.
  let reportPoolError = (error: Error): void => {
    process.stderr.write(`portal: database: an idle pooled connection failed: ${error.message}\n`);
  };
  pool.on('error', (error) => {
    // pg-pool hangs the failed client on its error: logged whole, it would print the connection's cancel key, its
    // parameters and its statements. The error is reported without it.
    Reflect.deleteProperty(error, 'client');
    reportPoolError(error);
  });
  // A connection lost while checked out (a query in flight: a background loop's, a request's) fails that query, which
  // its caller handles; the client's own 'error' event has no listener then (the pool listens only while it is idle),
  // and an unheard 'error' would end the process. Heard here, it is already reported through the failed query.
  pool.on('connect', (client) => client.on('error', () => {}));
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  const PreparedRead = preparedReads(driver);
  return {
    db,
    dialect: 'postgres',
    schema,
    async ping() {
      await sql`select 1`.execute(db);
    },
    close: () => db.destroy(),
    async queryPrepared(name, text, values) {
      const read = new PreparedRead(name, text, [...values]);
      await pool.query(read as unknown as pg.QueryConfig);
      return read.takeRows();
    },
    writeBatch: groupCommit(pool),
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, max }),
    watchPoolErrors(listener) {
      reportPoolError = listener;
    },
  };
}
