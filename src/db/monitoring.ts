import { sql } from 'kysely';
import type { Database, DbHandle } from './database.js';

/**
 * The operational reads of /readyz and /metrics, across the tables of several modules: they watch the
 * service as a whole (outbox depths, counts by status), so they live with the storage, not in a module.
 */

/** The oldest due time of an outbox's waiting work, when it is before `cutoff` (one indexed read). */
export async function oldestWaiting(
  db: DbHandle,
  outbox: 'webhook_deliveries' | 'email_outbox',
  cutoff: string,
): Promise<string | undefined> {
  const row = await db
    .selectFrom(outbox)
    .select('next_attempt_at')
    .where('status', '=', outbox === 'webhook_deliveries' ? 'pending' : 'queued')
    .where('next_attempt_at', '<', cutoff)
    .orderBy('next_attempt_at')
    .limit(1)
    .executeTakeFirst();
  return row?.next_attempt_at;
}

/** A table's rows counted by status. */
export function countByStatus(
  db: DbHandle,
  table: 'email_outbox' | 'webhook_deliveries' | 'subscriptions',
): Promise<{ status: string; count: string | number | bigint }[]> {
  return db
    .selectFrom(table)
    .select((eb) => ['status', eb.fn.countAll().as('count')])
    .groupBy('status')
    .execute();
}

export async function allWorkspaceIds(db: DbHandle): Promise<string[]> {
  return (await db.selectFrom('workspaces').select('id').execute()).map((row) => row.id);
}

/**
 * A consistent copy of a SQLite database while the server runs (`VACUUM INTO`: one read transaction, so
 * every commit is in the copy or none of it, the WAL's included).
 */
export async function copySqliteInto(database: Database, file: string): Promise<void> {
  await sql`VACUUM INTO ${file}`.execute(database.db);
}
