// A PostgreSQL schema of the bench's own (`--postgres`), in BENCH_POSTGRES_URL (default: the local test
// database), made before a run and dropped after it, so runs never see each other's rows.
import pg from 'pg';

export const BENCH_POSTGRES_URL = process.env.BENCH_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/test';

/** The DATABASE_URL of the service for `schema` (the service creates its tables there). */
export const postgresSchemaUrl = (schema: string) => `${BENCH_POSTGRES_URL}?schema=${schema}`;

/** One statement on its own connection (create or drop a schema). */
export async function onPostgres(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: BENCH_POSTGRES_URL });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}
