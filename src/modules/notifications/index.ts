// The notifications module's public face (docs/ARCHITECTURE.md: a module): all that other modules, the app and the CLI import.
export { createNotification } from './notifications.service.js';
export { default as notificationPreferenceRoutes } from './notification-preferences.routes.js';
export { notificationLinkRoutes, default as notificationRoutes } from './notifications.routes.js';
