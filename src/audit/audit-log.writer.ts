import type { UnitOfWork } from '../db/unit-of-work.js';
import type { Actor } from '../lib/caller.js';
import { isoAt } from '../lib/clock.js';
import { newRowId } from '../lib/row-id.js';
import type { AuditEventType } from './audit-events.js';
import { insertEntry } from './audit-trail.repository.js';

/** Units of work that wrote an entry: each wakes the listeners once, after its commit. */
const unitsToAnnounce = new WeakSet<UnitOfWork>();
/** Per database: what runs after a commit that wrote audit entries (the webhook workers of this process). */
const listeners = new WeakMap<object, Set<() => void>>();

function announceCommit(database: object): void {
  for (const listener of listeners.get(database) ?? []) listener();
}

/** Per database: whether a workspace's entries are flagged for the webhook worker (unset: every workspace's). */
const flagFilters = new WeakMap<object, (workspaceId: string) => boolean>();

/**
 * Flags for the webhook worker only the entries of the workspaces `hasEndpoints` names (set by this
 * process's webhook worker; modules/resources/webhooks/endpoint-workspaces.ts); returns the undo. Without it, every
 * entry is flagged, and the dispatcher finds whether its workspace has an endpoint.
 */
export function flagForWebhooksWhen(database: object, hasEndpoints: (workspaceId: string) => boolean): () => void {
  flagFilters.set(database, hasEndpoints);
  return () => flagFilters.delete(database);
}

/**
 * Calls `listener` after every commit of this process that wrote audit entries to `database`; returns
 * the unsubscribe. Other processes sharing the database find the entries by polling.
 */
export function onAuditCommitted(database: object, listener: () => void): () => void {
  const set = listeners.get(database) ?? new Set();
  listeners.set(database, set);
  set.add(listener);
  return () => set.delete(listener);
}

export interface AuditEvent {
  eventType: AuditEventType;
  description: string;
  context?: Record<string, unknown>;
  previousAttributes?: Record<string, unknown> | null;
  /**
   * What the event is about: its object kind and id, its state after the change (a deleted object's
   * last state) — the `data` of its webhook — and the company it concerns (limited internal users read
   * the entries of their companies).
   */
  subject?: { object: string; id: string; data: object; companyId?: string | null };
  /** When it happened, if not at the request's time (a session's last activity). */
  at?: number;
  /** Recorded as the service's own doing (source `system`, no key), as a synthetic sessionEnded is. */
  bySystem?: boolean;
}

/**
 * Appends one audit entry (its id answered) to the unit of work of the change it records. The entry is also the
 * change's webhook event (`webhook_pending`, when its workspace has endpoints): sent after the commit, or never
 * if the change rolls back. The commit wakes this process's webhook worker (onAuditCommitted), so the
 * delivery leaves at once.
 */
export function recordAudit(work: UnitOfWork, actor: Actor, event: AuditEvent): string {
  const flagged = flagFilters.get(work.database)?.(actor.workspaceId) ?? true;
  if (flagged && !unitsToAnnounce.has(work)) {
    unitsToAnnounce.add(work);
    work.onCommit(() => announceCommit(work.database));
  }
  const id = newRowId();
  const at = isoAt(event.at ?? actor.at);
  const subject = event.subject;
  work.write(
    insertEntry(work.db, {
      id,
      workspace_id: actor.workspaceId,
      event_type: event.eventType,
      event_description: event.description,
      source: event.bySystem ? 'system' : actor.source,
      actor_id: actor.actorId,
      actor_type: actor.actorType,
      actor_role: actor.actorRole,
      actor_agent_id: null,
      automation_id: null,
      is_super_admin_triggered: 0,
      api_key_ref: event.bySystem ? null : actor.apiKeyRef,
      company_id: actor.companyId,
      scope_company_id: subject?.companyId ?? actor.companyId,
      context: JSON.stringify(event.context ?? {}),
      previous_attributes: event.previousAttributes ? JSON.stringify(event.previousAttributes) : null,
      object_type: subject?.object ?? null,
      ref: subject?.id ?? null,
      data: subject ? JSON.stringify(subject.data) : null,
      ip: event.bySystem ? null : actor.ip,
      user_agent: event.bySystem ? null : actor.userAgent,
      webhook_pending: flagged ? 1 : 0,
      created_at: at,
      updated_at: at,
    }),
  );
  return id;
}
