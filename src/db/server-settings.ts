import type { Database } from './database.js';

/**
 * The address the last server started on this database answers at: its PORTAL_URL, or where it listens. The
 * `portal` command reads it to mint session tokens whose baseUrl reaches that server, whatever its own environment.
 */
export async function recordServerUrl(database: Database, url: string, at: string): Promise<void> {
  await database.db
    .insertInto('server_settings')
    .values({ name: 'url', value: url, updated_at: at })
    .onConflict((oc) => oc.column('name').doUpdateSet({ value: url, updated_at: at }))
    .execute();
}

/** The address recorded by the last server started on this database; undefined when none has started. */
export async function readServerUrl(database: Database): Promise<string | undefined> {
  const row = await database.db.selectFrom('server_settings').select('value').where('name', '=', 'url').executeTakeFirst();
  return row?.value;
}

/**
 * The database's own id, and since when it has had one (db/migrate.ts makes it): what a file store shared with
 * other databases keeps this one's content under.
 */
export async function readDatabaseId(database: Database): Promise<{ id: string; sinceMs: number }> {
  const row = await database.db
    .selectFrom('server_settings')
    .select(['value', 'updated_at'])
    .where('name', '=', 'database-id')
    .executeTakeFirst();
  if (!row) throw new Error('the database has no id: run `portal migrate`');
  return { id: row.value, sinceMs: Date.parse(row.updated_at) };
}
