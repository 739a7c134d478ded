import type { Kysely } from 'kysely';
import { type Page, type PageTokens, fetchPage, pageScope } from '../../../db/paging.js';
import { nonEmpty, objectFields, parseObject } from '../../../db/rows.js';
import type { AuditLogTable, DB } from '../../../db/schema.js';
import type { UnitOfWork } from '../../../db/unit-of-work.js';
import type { Access } from '../../../lib/caller.js';
import { isoAt } from '../../../lib/clock.js';
import type { AuditEventType } from '../../../audit/index.js';
import type { AuditLogEntry, AuditLogListQuery } from './audit-log.schemas.js';

/** An entry as answered: internal-only columns (role, agent, key, super-admin) stay here. */
function toEntry(row: AuditLogTable): AuditLogEntry {
  return {
    ...objectFields(row, 'auditLogEntry'),
    creatorId: row.actor_id ?? '',
    identityId: row.actor_id ?? '',
    ref: row.ref ?? '',
    data: row.data ?? '',
    eventType: row.event_type as AuditEventType,
    eventDescription: row.event_description,
    source: row.source,
    // Columns without a value are left out (absent is absent), not answered null.
    actorId: row.actor_id ?? undefined,
    actorType: row.actor_type ?? undefined,
    automationId: row.automation_id ?? undefined,
    companyId: row.company_id ?? undefined,
    context: parseObject(row.context),
    previousAttributes: row.previous_attributes === null ? undefined : parseObject(row.previous_attributes),
    ip: row.ip ?? undefined,
    userAgent: row.user_agent ?? undefined,
  };
}

/** RFC 3339 with any offset → the stored form (UTC, milliseconds), so text comparison is time comparison. */
const stored = (time: string) => isoAt(Date.parse(time));

/**
 * A page of the log, newest first. Each filter but `source` has its index `(workspace_id, filter,
 * created_at, id)`; the time bounds are a range of it. A principal limited to some companies reads the
 * entries of those companies only.
 */
export function listEntries(db: Kysely<DB>, access: Access, query: AuditLogListQuery, tokens: PageTokens): Promise<Page<AuditLogEntry>> {
  const { eventType, actorId, companyId, source, createdAfter, createdBefore } = query;
  let q = db.selectFrom('audit_log').selectAll().where('workspace_id', '=', access.workspaceId);
  if (access.companyIds) q = q.where('scope_company_id', 'in', nonEmpty(access.companyIds));
  if (eventType !== undefined) q = q.where('event_type', '=', eventType);
  if (actorId !== undefined) q = q.where('actor_id', '=', actorId);
  if (companyId !== undefined) q = q.where('company_id', '=', companyId);
  if (source !== undefined) q = q.where('source', '=', source);
  if (createdAfter !== undefined) q = q.where('created_at', '>=', stored(createdAfter));
  if (createdBefore !== undefined) q = q.where('created_at', '<', stored(createdBefore));
  const filters = { eventType, actorId, companyId, source, createdAfter, createdBefore };
  // Entries written before free-form objects were capped at 16 KB can hold up to 1 MiB each: the page's text
  // budget (db/paging.ts) ends a page of them early.
  return fetchPage(q, 'audit_log', query, tokens, pageScope(access, 'audit-log', filters), toEntry);
}

export async function findEntry(db: Kysely<DB>, access: Access, id: string): Promise<AuditLogEntry | undefined> {
  const row = await db
    .selectFrom('audit_log')
    .selectAll()
    .where('workspace_id', '=', access.workspaceId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row && toEntry(row);
}

/** The actor's open session: when its sessionStarted was recorded. */
export async function openSession(db: Kysely<DB>, access: Access, actorId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('audit_sessions')
    .select('started_at')
    .where('workspace_id', '=', access.workspaceId)
    .where('actor_id', '=', actorId)
    .executeTakeFirst();
  return row?.started_at;
}

export function startSession(work: UnitOfWork, access: Access, actorId: string, at: string): void {
  work.write(
    work.db
      .insertInto('audit_sessions')
      .values({ workspace_id: access.workspaceId, actor_id: actorId, started_at: at })
      .onConflict((oc) => oc.columns(['workspace_id', 'actor_id']).doUpdateSet({ started_at: at })),
  );
}

export function endSession(work: UnitOfWork, access: Access, actorId: string): void {
  work.write(work.db.deleteFrom('audit_sessions').where('workspace_id', '=', access.workspaceId).where('actor_id', '=', actorId));
}
