export { findInternalUser } from './internal-users.repository.js';
export { InternalUserCreate } from './internal-users.schemas.js';
export { createInternalUser } from './internal-users.service.js';
export { internalUserAdminRoutes, default as internalUserRoutes } from './internal-users.routes.js';
export { getInternalUser } from './internal-users.service.js';
