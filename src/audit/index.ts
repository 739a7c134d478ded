/**
 * The audit trail every module writes to: the event catalogue (also the webhooks' and the console's), the
 * writer that appends an entry to a change's unit of work, and the blanking of personal data. It sits
 * below the modules (it imports none of them); the audit-log module serves the trail over the API.
 */
export { AUDIT_EVENT_TYPES, type AuditEventType, WEBHOOK_EVENT_NAMES, webhookEventName } from './audit-events.js';
export { flagForWebhooksWhen, onAuditCommitted, recordAudit } from './audit-log.writer.js';
export {
  type PendingEntry,
  type TrailEntry,
  blankActorPersonalData,
  claimPendingEntries,
  entriesAbout,
  entriesOfWorkspaceBetween,
  markDispatched,
  markWorkspacesDispatched,
} from './audit-trail.repository.js';
export { PersonalDataSweep } from './personal-data-sweep.js';
