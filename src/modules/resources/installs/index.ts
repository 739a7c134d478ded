// installs (docs/ARCHITECTURE.md, "A module"): its public face.
export { createConnection } from './connections.service.js';
export { InstallCreate } from './installs.schemas.js';
export { appOrigins, createInstall, getInstall, installCoreModules, publishInstall } from './installs.service.js';
export { declareNotificationSettings } from './notification-settings.service.js';
export type { NotificationSetting } from './notification-settings.schemas.js';
export { installAdminRoutes, default as installRoutes } from './installs.routes.js';
// Reads for the notifications module: the settings installs declare.
export { declaredConfigsOf, declaredNotificationConfigs } from './installs.repository.js';
