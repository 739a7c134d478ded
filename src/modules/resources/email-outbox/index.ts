// email-outbox (docs/ARCHITECTURE.md, "A module"): its public face.
export { EmailDelivery, type EmailDeliveryOptions } from './email-outbox.delivery.js';
export { OutboxListQuery } from './email-outbox.schemas.js';
export { listOutbox } from './email-outbox.service.js';
export { default as emailOutboxAdminRoutes } from './email-outbox.routes.js';
// The outbox's one way in: e-mails queued in the unit of work of the change that sends them.
export { type QueuedEmail, queueEmails } from './email-outbox.repository.js';
