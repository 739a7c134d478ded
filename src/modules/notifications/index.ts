export { createNotification } from './notifications.service.js';
export { default as notificationPreferenceRoutes } from './notification-preferences.routes.js';
export { default as notificationRoutes } from './notifications.routes.js';
