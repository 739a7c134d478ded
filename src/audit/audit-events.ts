// The audit event registry lives in src/shared/audit-events.ts, where the admin console reads it too.
export { AUDIT_EVENT_TYPES, type AuditEventType, WEBHOOK_EVENT_NAMES, webhookEventName } from '../shared/audit-events.js';
