export { createConnection } from './connections.service.js';
export { coreInstalls } from './core-modules.js';
export { insertInstalls } from './installs.repository.js';
export { InstallCreate } from './installs.schemas.js';
export { createInstall, publishInstall } from './installs.service.js';
export { declareNotificationSettings } from './notification-settings.service.js';
export { installAdminRoutes, default as installRoutes } from './installs.routes.js';
export { declaredConfigsOf, declaredNotificationConfigs } from './installs.repository.js';
export type { NotificationSetting } from './notification-settings.schemas.js';
