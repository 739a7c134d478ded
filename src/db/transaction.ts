import type { Kysely } from 'kysely';
import type { DB } from './schema.js';

/** Runs `fn` in a transaction, joining the caller's when `db` already is one (Kysely cannot nest). */
export function inTransaction<T>(db: Kysely<DB>, fn: (trx: Kysely<DB>) => Promise<T>): Promise<T> {
  return db.isTransaction ? fn(db) : db.transaction().execute(fn);
}
