import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import type { Database, Statement } from './database.js';
import { mergeInserts } from './merged-inserts.js';
import type { DB } from './schema.js';

/** A batch in one transaction on one pooled connection; prepared statements by name (parsed once per connection). */
async function inTransaction(pool: pg.Pool, statements: readonly Statement[]): Promise<void> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    // By index: a write's `onRow` may add writes to the batch (Statement.onRow).
    for (let i = 0; i < statements.length; i++) {
      const { name, sql, parameters, onRow } = statements[i];
      const { rows } = await client.query({ name, text: sql, values: [...parameters] });
      onRow?.(rows[0]);
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch((rollbackError: Error) => {
      broken = rollbackError; // the connection is unusable: drop it rather than return it to the pool
    });
    throw error;
  } finally {
    client.release(broken);
  }
}

export function openPostgres(url: string): Database {
  // `?schema=name` (ours, not libpq's) puts every table in that schema: used to isolate test runs.
  const parsed = new URL(url);
  const schema = parsed.searchParams.get('schema') ?? undefined;
  parsed.searchParams.delete('schema');
  if (schema !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) throw new Error(`invalid schema name "${schema}"`);
  const max = 10;
  const pool = new pg.Pool({
    connectionString: parsed.toString(),
    max,
    connectionTimeoutMillis: 5000,
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  });
  // An idle client losing its connection must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  return {
    db,
    dialect: 'postgres',
    schema,
    async ping() {
      await sql`select 1`.execute(db);
    },
    close: () => db.destroy(),
    async queryPrepared(name, text, values) {
      return (await pool.query({ name, text, values: [...values] })).rows;
    },
    // A batch of inserts only (an import's, a fan-out's) goes as multi-row inserts: fewer round trips.
    writeBatch: (statements) => inTransaction(pool, mergeInserts(statements)),
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, max }),
  };
}
