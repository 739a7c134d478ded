// webhooks (docs/ARCHITECTURE.md, "A module"): its public face.
export type { LookupAll } from './webhook-http.js';
export { WebhookWorker } from './webhook-worker.js';
export type { WebhookWorkerOptions } from './webhook-worker.js';
export { DeliveryListQuery, ReplayFailed, WebhookEndpointCreate } from './webhooks.schemas.js';
export type { WebhookSettings } from './webhooks.service.js';
export { default as appEventRoutes, webhookAdminRoutes } from './webhooks.routes.js';
export {
  createEndpoint,
  deleteEndpoint,
  listDeliveries,
  listEndpoints,
  replayDelivery,
  replayFailedSince,
  rotateSecret,
  setEndpointEnabled,
} from './webhooks.service.js';
