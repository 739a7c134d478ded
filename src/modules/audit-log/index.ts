export { WEBHOOK_EVENT_NAMES, webhookEventName } from './audit-events.js';
export type { AuditEventType } from './audit-events.js';
export { blankActorPersonalData, blankPersonalDataBefore } from './audit-log.repository.js';
export { recordAudit } from './audit-log.writer.js';
export { default as auditLogRoutes } from './audit-log.routes.js';
