import { randomBytes } from 'node:crypto';
import { Migrator, type MigrationProvider } from 'kysely';
import type { Database } from './database.js';
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
  const provider: MigrationProvider = {
    async getMigrations() {
      return Object.fromEntries(Object.entries(MIGRATIONS).map(([name, make]) => [name, make(database.dialect)]));
    },
  };
  const migrator = new Migrator({
    db: database.db,
    provider,
    ...(database.schema ? { migrationTableSchema: database.schema } : {}),
  });
  const { error, results = [] } = await (target === undefined ? migrator.migrateToLatest() : migrator.migrateTo(target));
  if (error) {
    const failed = results.find((r) => r.status === 'Error');
    throw new MigrationError(`migration ${failed?.migrationName ?? '?'} failed: ${(error as Error).message ?? error}`);
  }
  await ensureSecret(database, 'paging');
  await ensureSecret(database, 'webhooks');
  return results.filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/** Server secrets live in the database so that every process sharing it agrees on them. */
async function ensureSecret(database: Database, name: string): Promise<void> {
  await database.db
    .insertInto('server_secrets')
    .values({ name, value: randomBytes(32).toString('base64url') })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
}

export async function readSecret(database: Database, name: string): Promise<string> {
  const row = await database.db.selectFrom('server_secrets').select('value').where('name', '=', name).executeTakeFirst();
  if (!row) throw new MigrationError(`server secret "${name}" is missing: run \`portal migrate\``);
  return row.value;
}
