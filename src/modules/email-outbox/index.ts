export { EmailDelivery } from './email-outbox.delivery.js';
export type { EmailDeliveryOptions } from './email-outbox.delivery.js';
export { queueEmails } from './email-outbox.repository.js';
export type { QueuedEmail } from './email-outbox.repository.js';
export { OutboxListQuery } from './email-outbox.schemas.js';
export { listOutbox } from './email-outbox.service.js';
export { default as emailOutboxAdminRoutes } from './email-outbox.routes.js';
