import type { Kysely } from 'kysely';
import type { Database, OpenOptions } from './database.js';
import { openPostgres } from './postgres.js';
import type { DB } from './schema.js';
import { openSqlite } from './sqlite.js';

/** Which Database a Kysely instance belongs to: prepared queries find their fast path through it. */
const databases = new WeakMap<Kysely<DB>, Database>();
export const databaseOf = (db: Kysely<DB>): Database | undefined => databases.get(db);

/** `sqlite:<path>` (`sqlite::memory:`) or a `postgres://` URL. */
export function openDatabase(url: string, options: OpenOptions = {}): Database {
  const database = url.startsWith('sqlite:') ? openSqlite(url, options) : openPostgres(url, options);
  databases.set(database.db, database);
  return database;
}
