// A PostgreSQL schema of the bench's own (`--postgres`), in BENCH_POSTGRES_URL (default: the local test
// database), made before a run and dropped after it, so runs never see each other's rows.
import pg from 'pg';

export const BENCH_POSTGRES_URL = process.env.BENCH_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/test';

/** The DATABASE_URL of the service for `schema` (the service creates its tables there). */
export const postgresSchemaUrl = (schema: string) => `${BENCH_POSTGRES_URL}?schema=${schema}`;

/** Statements on one connection of their own, one after the other (create or drop a schema, copy tables). */
export async function onPostgres(...statements: string[]): Promise<void> {
  const client = new pg.Client({ connectionString: BENCH_POSTGRES_URL });
  await client.connect();
  try {
    for (const statement of statements) await client.query(statement);
  } finally {
    await client.end();
  }
}

/**
 * The naive server's copy of the seeded tables it reads (`to`, a new schema): workspaces, companies, clients, invoices,
 * message channels and messages, with their rows, indexes and the foreign keys a client's insert checks, as the SQLite
 * copy has them.
 */
export function copyNaiveTables(from: string, to: string): Promise<void> {
  const copy = (table: string) => [
    `create table ${to}.${table} (like ${from}.${table} including all)`,
    `insert into ${to}.${table} select * from ${from}.${table}`,
  ];
  return onPostgres(
    `create schema ${to}`,
    ...copy('workspaces'),
    ...copy('companies'),
    ...copy('clients'),
    ...copy('invoices'),
    ...copy('message_channels'),
    ...copy('messages'),
    ...copy('file_channels'),
    ...copy('files'),
    `alter table ${to}.companies add foreign key (workspace_id) references ${to}.workspaces (id) on delete cascade`,
    `alter table ${to}.clients add foreign key (workspace_id) references ${to}.workspaces (id) on delete cascade`,
    `alter table ${to}.clients add foreign key (company_id) references ${to}.companies (id)`,
    `analyze ${to}.workspaces, ${to}.companies, ${to}.clients, ${to}.invoices, ${to}.message_channels, ${to}.messages, ${to}.file_channels, ${to}.files`,
  );
}
