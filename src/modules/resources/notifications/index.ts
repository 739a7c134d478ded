// notifications (docs/ARCHITECTURE.md, "A module"): its public face.
export { createNotification } from './notifications.service.js';
export { default as notificationPreferenceRoutes } from './notification-preferences.routes.js';
export { notificationLinkRoutes, default as notificationRoutes } from './notifications.routes.js';
