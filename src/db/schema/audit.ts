/** The audit log (also the webhooks' outbox) and webhook endpoints, deliveries and attempts (modules/resources/audit-log, webhooks). */
import type { AuditActorType, AuditSource } from '../../lib/caller.js';

export interface AuditLogTable {
  id: string;
  workspace_id: string;
  event_type: string;
  event_description: string;
  source: AuditSource;
  actor_id: string | null;
  actor_type: AuditActorType | null;
  actor_role: string | null;
  api_key_ref: string | null;
  company_id: string | null;
  /** JSON object */
  context: string;
  /** JSON object or null */
  previous_attributes: string | null;
  ip: string | null;
  user_agent: string | null;
  created_at: string;
  updated_at: string;
  /** internal-only (never answered) */
  actor_agent_id: string | null;
  automation_id: string | null;
  is_super_admin_triggered: number;
  /** the object the entry is about: its kind, id and state after the change (JSON) */
  object_type: string | null;
  ref: string | null;
  data: string | null;
  /** the company the entry concerns: what an internal user limited to some companies reads */
  scope_company_id: string | null;
  /** 1 until the webhook dispatcher has fanned it out */
  webhook_pending: number;
}

interface AuditSessionsTable {
  workspace_id: string;
  actor_id: string;
  /** the createdAt of the actor's open session's sessionStarted */
  started_at: string;
}

export interface WebhookEndpointsTable {
  id: string;
  workspace_id: string;
  url: string;
  /** '*' (every event) or dotted event names, comma-separated */
  event_types: string;
  description: string;
  enabled: number;
  /** the signing secret, encrypted (lib/secret-box.ts) */
  secret: string;
  /** during a rotation: the previous secret (encrypted) and until when it still signs */
  previous_secret: string | null;
  previous_secret_until: string | null;
  /** since when every delivery has failed (null once one succeeds) */
  failing_since: string | null;
  disabled_reason: string | null;
  /** 0 until the entries of its first seconds written without a webhook flag are fanned out to it (1: nothing to do) */
  caught_up: number;
  created_at: string;
  updated_at: string;
}

type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

export interface WebhookDeliveriesTable {
  id: string;
  workspace_id: string;
  endpoint_id: string;
  /** the audit entry: the webhook-id of every attempt and replay */
  event_id: string;
  event_type: string;
  /** the body sent, as sent (JSON) */
  payload: string;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: string;
  claimed_until: string | null;
  last_status: number | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

export interface WebhookAttemptsTable {
  id: string;
  delivery_id: string;
  attempt: number;
  status_code: number | null;
  duration_ms: number;
  response_excerpt: string;
  error: string | null;
  next_attempt_at: string | null;
  created_at: string;
}

export interface AuditTables {
  audit_log: AuditLogTable;
  audit_sessions: AuditSessionsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
}
