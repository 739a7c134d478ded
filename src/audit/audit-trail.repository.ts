import { type Kysely, sql } from 'kysely';
import type { DialectName } from '../db/database.js';
import { type FullRow, preparedWrite } from '../db/prepared.js';
import { skipLocked } from '../db/rows.js';
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

/** An entry waiting to be fanned out to webhook endpoints (the audit log is the webhooks' outbox). */
export interface PendingEntry {
  id: string;
  workspace_id: string;
  event_type: string;
  object_type: string | null;
  data: string | null;
  context: string;
  previous_attributes: string | null;
  created_at: string;
}

/** The oldest entries still to dispatch, locked for the caller's transaction. */
export async function claimPendingEntries(trx: Kysely<DB>, dialect: DialectName, limit: number): Promise<PendingEntry[]> {
  const query = trx
    .selectFrom('audit_log')
    .select(['id', 'workspace_id', 'event_type', 'object_type', 'data', 'context', 'previous_attributes', 'created_at'])
    .where('webhook_pending', '=', 1)
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit);
  return skipLocked(query, dialect).execute();
}

/** A workspace's entries written from `from` (inclusive) to `until` (exclusive), oldest first: a range of audit_log_page. */
export function entriesOfWorkspaceBetween(
  trx: Kysely<DB>,
  workspaceId: string,
  from: string,
  until: string,
  limit: number,
): Promise<PendingEntry[]> {
  return trx
    .selectFrom('audit_log')
    .select(['id', 'workspace_id', 'event_type', 'object_type', 'data', 'context', 'previous_attributes', 'created_at'])
    .where('workspace_id', '=', workspaceId)
    .where('created_at', '>=', from)
    .where('created_at', '<', until)
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit)
    .execute();
}

export async function markDispatched(trx: Kysely<DB>, ids: readonly string[]): Promise<void> {
  await trx.updateTable('audit_log').set({ webhook_pending: 0 }).where('id', 'in', ids).execute();
}

/**
 * Up to `limit` pending entries of these workspaces marked dispatched in one statement, none read into memory:
 * for workspaces with no endpoint to send them to (a backlog written where no worker filtered the flag: an
 * import, the `portal` command). Bounded, so that one transaction does not hold a whole backlog's pages.
 */
export async function markWorkspacesDispatched(trx: Kysely<DB>, workspaceIds: readonly string[], limit: number): Promise<void> {
  await trx
    .updateTable('audit_log')
    .set({ webhook_pending: 0 })
    .where('id', 'in', (pending) =>
      pending.selectFrom('audit_log').select('id').where('webhook_pending', '=', 1).where('workspace_id', 'in', workspaceIds).limit(limit),
    )
    .execute();
}

/** An entry of one object's trail, as a document lists it. */
export interface TrailEntry {
  eventType: string;
  description: string;
  actorType: string | null;
  actorId: string | null;
  apiKeyRef: string | null;
  ip: string | null;
  createdAt: string;
}

/**
 * The entries about one object (its kind and id), oldest first, at most `limit`. Only contracts have an index
 * for it (audit_log_contract_trail, partial on their entries): another kind would read the workspace's log.
 */
export async function entriesAbout(
  db: Kysely<DB>,
  access: Access,
  objectType: 'contract',
  id: string,
  limit: number,
): Promise<TrailEntry[]> {
  const rows = await db
    .selectFrom('audit_log')
    .select(['event_type', 'event_description', 'actor_type', 'actor_id', 'api_key_ref', 'ip', 'created_at'])
    .where('workspace_id', '=', access.workspaceId)
    // A literal, so that both databases' planners match the partial index's condition.
    .where('object_type', '=', sql.lit(objectType))
    .where('ref', '=', id)
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((row) => ({
    eventType: row.event_type,
    description: row.event_description,
    actorType: row.actor_type,
    actorId: row.actor_id,
    apiKeyRef: row.api_key_ref,
    ip: row.ip,
    createdAt: row.created_at,
  }));
}
