import { createHmac, randomBytes } from 'node:crypto';
import { type DatabaseIntrospector, type Kysely, Migrator, type MigrationProvider, sql } from 'kysely';
import type { Database } from './database.js';
import type { DB } from './schema.js';
import { MIGRATIONS } from './migrations/index.js';

export class MigrationError extends Error {}

/** Applies every pending migration; returns the names applied (empty when up to date). */
export function migrateToLatest(database: Database): Promise<string[]> {
  return migrate(database, undefined);
}

/** Applies the pending migrations up to and including `name` (tests of a migration's back-fill). */
export function migrateUpTo(database: Database, name: string): Promise<string[]> {
  return migrate(database, name);
}

async function migrate(database: Database, target: string | undefined): Promise<string[]> {
  const applied =
    database.dialect === 'sqlite'
      ? await database.db
          .connection()
          .execute((connection) => underSqliteWriteLock(connection, () => runMigrator(database, connection, target)))
      : await runMigrator(database, database.db, target);
  await ensureSecret(database, 'paging');
  await ensureSecret(database, 'webhooks');
  await ensureSecret(database, 'files');
  if (target === undefined) await ensureDatabaseId(database); // its table comes with a migration
  await ensureSecret(database, 'sign-in');
  await ensureSecret(database, 'app-builder');
  return applied;
}

/** How long a process waits for another one's migrations on the same SQLite file. */
const SQLITE_MIGRATION_WAIT_MS = 120_000;

/**
 * Kysely's migration lock is a no-op on SQLite, so processes started together on one file each applied the
 * migrations ("table … already exists"). Here they run in one transaction that holds the file's write lock from
 * its start (BEGIN IMMEDIATE): the next process waits, then finds them applied; a failed migration leaves the
 * database as it was (SQLite's schema changes are transactional).
 */
async function underSqliteWriteLock<T>(connection: Kysely<DB>, run: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + SQLITE_MIGRATION_WAIT_MS;
  for (;;) {
    try {
      await sql`begin immediate`.execute(connection);
      break;
    } catch (error) {
      // Each try waits busy_timeout (5 s) for the lock; a long migration elsewhere takes several.
      if ((error as { code?: string }).code !== 'SQLITE_BUSY' || Date.now() > deadline) throw error;
    }
  }
  try {
    const result = await run();
    await sql`commit`.execute(connection);
    return result;
  } catch (error) {
    await sql`rollback`.execute(connection);
    throw error;
  }
}

async function runMigrator(database: Database, db: Kysely<DB>, target: string | undefined): Promise<string[]> {
  const provider: MigrationProvider = {
    async getMigrations() {
      return Object.fromEntries(Object.entries(MIGRATIONS).map(([name, make]) => [name, make(database.dialect)]));
    },
  };
  const migrator = new Migrator({
    db: database.schema ? inOneSchema(db, database.schema) : db,
    provider,
    ...(database.schema ? { migrationTableSchema: database.schema } : {}),
  });
  const { error, results = [] } = await (target === undefined ? migrator.migrateToLatest() : migrator.migrateTo(target));
  if (error) {
    const failed = results.find((r) => r.status === 'Error');
    throw new MigrationError(`migration ${failed?.migrationName ?? '?'} failed: ${(error as Error).message ?? error}`);
  }
  return results.filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/**
 * The database as the migrator sees it when every table lives in one PostgreSQL schema: its introspection
 * (is the schema there, are the migration tables) looks at that schema only. Kysely's own reads the tables of
 * every schema, which fails ("schema … does not exist") when another process drops one meanwhile: each
 * test file's schema is dropped as it ends, beside the others migrating.
 */
function inOneSchema<DB>(db: Kysely<DB>, schema: string): Kysely<DB> {
  const introspection: DatabaseIntrospector = {
    async getSchemas() {
      const { rows } = await sql<{ name: string }>`select nspname as name from pg_namespace where nspname = ${schema}`.execute(db);
      return rows;
    },
    async getTables() {
      const { rows } = await sql<{ name: string }>`
        select table_name as name from information_schema.tables where table_schema = ${schema}`.execute(db);
      return rows.map(({ name }) => ({ name, schema, isView: false, columns: [] }));
    },
    getMetadata: async () => ({ tables: await introspection.getTables() }),
  };
  return new Proxy(db, {
    get(target, property) {
      if (property === 'introspection') return introspection;
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** Server secrets live in the database so that every process sharing it agrees on them. */
async function ensureSecret(database: Database, name: string): Promise<void> {
  await database.db
    .insertInto('server_secrets')
    .values({ name, value: randomBytes(32).toString('base64url') })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
}

/**
 * The database's own id (server setting `database-id`): files' content is kept under it in a store that several
 * databases may share (modules/resources/files/file-store.ts). Made once, from the `files` secret that every database has
 * had since its first start, so a backup taken before the id existed, restored later, gets the same id back.
 */
async function ensureDatabaseId(database: Database): Promise<void> {
  const hash = createHmac('sha256', await readSecret(database, 'files'))
    .update('file store namespace')
    .digest('hex');
  const id = `${hash.slice(0, 8)}-${hash.slice(8, 12)}-${hash.slice(12, 16)}-${hash.slice(16, 20)}-${hash.slice(20, 32)}`;
  await database.db
    .insertInto('server_settings')
    .values({ name: 'database-id', value: id, updated_at: new Date().toISOString() })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
}

export async function readSecret(database: Database, name: string): Promise<string> {
  const row = await database.db.selectFrom('server_secrets').select('value').where('name', '=', name).executeTakeFirst();
  if (!row) throw new MigrationError(`server secret "${name}" is missing: run \`portal migrate\``);
  return row.value;
}
