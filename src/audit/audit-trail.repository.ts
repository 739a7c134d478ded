import type { Kysely } from 'kysely';
import { type FullRow, preparedWrite } from '../db/prepared.js';
import type { DB } from '../db/schema.js';
import type { UnitOfWork } from '../db/unit-of-work.js';
import type { Access } from '../lib/caller.js';
import { isoAt } from '../lib/clock.js';

export const insertEntry = preparedWrite('insert_audit_entry', (db, row: FullRow<'audit_log'>) => db.insertInto('audit_log').values(row));

/** Blanks the ip and User-Agent of everything this actor did (a client deleted takes its personal data along). */
export function blankActorPersonalData(work: UnitOfWork, access: Access, actorId: string): void {
  work.write(
    work.db
      .updateTable('audit_log')
      .set({ ip: null, user_agent: null })
      .where('workspace_id', '=', access.workspaceId)
      .where('actor_id', '=', actorId),
  );
}

/** Blanks the ip and User-Agent of entries older than `cutoff`, on the partial index of those that still hold them. */
export async function blankPersonalDataBefore(db: Kysely<DB>, cutoff: number): Promise<number> {
  const result = await db
    .updateTable('audit_log')
    .set({ ip: null, user_agent: null })
    .where('created_at', '<', isoAt(cutoff))
    .where((eb) => eb.or([eb('ip', 'is not', null), eb('user_agent', 'is not', null)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
