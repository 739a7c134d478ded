import type { Compilable, Kysely } from 'kysely';
import { databaseOf } from './database.js';
import type { DB } from './schema.js';

/**
 * Writes that must land together, compiled up front and run as one transaction. Services read and
 * check first, then hand every write of the change (audit entries included) to one batch; constraints
 * (unique, foreign key) guard what could change in between. Inside a transaction, runs within it.
 */
export async function writeBatch(db: Kysely<DB>, queries: readonly Compilable<unknown>[]): Promise<void> {
  const compiled = queries.map((q) => q.compile());
  const database = databaseOf(db);
  if (database) return database.writeBatch(compiled);
  for (const query of compiled) await db.executeQuery(query);
}
