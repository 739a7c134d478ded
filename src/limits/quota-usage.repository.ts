import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.js';

/** A workspace's stored count of `day` (0 when none). */
export async function storedQuotaUsed(db: Kysely<DB>, workspaceId: string, day: string): Promise<number> {
  const row = await db
    .selectFrom('quota_usage')
    .select('used')
    .where('workspace_id', '=', workspaceId)
    .where('day', '=', day)
    .executeTakeFirst();
  return row?.used ?? 0;
}

export function storedQuotasUsed(db: Kysely<DB>, workspaceIds: readonly string[], day: string) {
  return db
    .selectFrom('quota_usage')
    .select(['workspace_id', 'used'])
    .where('day', '=', day)
    .where('workspace_id', 'in', workspaceIds)
    .execute();
}

/** Writes counts (a newer count replaces the stored one). */
export async function saveQuotasUsed(db: Kysely<DB>, rows: { workspace_id: string; day: string; used: number }[]): Promise<void> {
  await db
    .insertInto('quota_usage')
    .values(rows)
    .onConflict((oc) => oc.columns(['workspace_id', 'day']).doUpdateSet((eb) => ({ used: eb.ref('excluded.used') })))
    .execute();
}
