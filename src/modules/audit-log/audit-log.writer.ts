import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { AuditLogTable, DB } from '../../db/schema.js';
import { isoAt } from '../../lib/clock.js';

/**
 * Who made a change and from where; built once per request (or for the `portal` command) and passed
 * to every service that writes, which records it with the change in the same transaction.
 */
export interface Actor {
  workspaceId: string;
  source: AuditLogTable['source'];
  actorId: string | null;
  actorType: AuditLogTable['actor_type'];
  actorRole: string | null;
  apiKeyRef: string | null;
  /** Company of the actor when the actor is a client user. */
  companyId: string | null;
  ip: string | null;
  userAgent: string | null;
  /** The request's time (ms): every row written by one request shares it. */
  at: number;
}

/** The `portal` command acting on a workspace: source `system`, no user. */
export function systemActor(workspaceId: string, at: number): Actor {
  return { workspaceId, source: 'system', actorId: null, actorType: null, actorRole: null, apiKeyRef: null, companyId: null, ip: null, userAgent: null, at };
}

export interface AuditEvent {
  eventType: string;
  description: string;
  context?: Record<string, unknown>;
  previousAttributes?: Record<string, unknown> | null;
}

/** Appends one audit entry; call it inside the transaction of the change it records. */
export async function recordAudit(db: Kysely<DB>, actor: Actor, event: AuditEvent): Promise<void> {
  await auditInsert(db, actor, event).execute();
}

/** The insert of one audit entry, for a write batch (db/batch.ts). */
export function auditInsert(db: Kysely<DB>, actor: Actor, event: AuditEvent) {
  const at = isoAt(actor.at);
  return db
    .insertInto('audit_log')
    .values({
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
    });
}
