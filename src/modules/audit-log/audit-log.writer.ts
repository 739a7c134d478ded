import { randomUUID } from 'node:crypto';
import { type FullRow, preparedWrite } from '../../db/prepared.js';
import type { UnitOfWork } from '../../db/unit-of-work.js';
import type { Actor } from '../../lib/caller.js';
import { isoAt } from '../../lib/clock.js';

export interface AuditEvent {
  eventType: string;
  description: string;
  context?: Record<string, unknown>;
  previousAttributes?: Record<string, unknown> | null;
}

const insertEntry = preparedWrite('insert_audit_entry', (db, row: FullRow<'audit_log'>) => db.insertInto('audit_log').values(row));

/** Appends one audit entry to the unit of work of the change it records. */
export function recordAudit(work: UnitOfWork, actor: Actor, event: AuditEvent): void {
  const at = isoAt(actor.at);
  work.write(
    insertEntry(work.db, {
      id: randomUUID(),
      workspace_id: actor.workspaceId,
      event_type: event.eventType,
      event_description: event.description,
      source: actor.source,
      actor_id: actor.actorId,
      actor_type: actor.actorType,
      actor_role: actor.actorRole,
      api_key_ref: actor.apiKeyRef,
      company_id: actor.companyId,
      context: JSON.stringify(event.context ?? {}),
      previous_attributes: event.previousAttributes ? JSON.stringify(event.previousAttributes) : null,
      ip: actor.ip,
      user_agent: actor.userAgent,
      created_at: at,
      updated_at: at,
    }),
  );
}
