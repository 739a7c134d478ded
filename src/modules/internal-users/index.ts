// The internal users module's public face (docs/ARCHITECTURE.md: a module).
export { InternalUserCreate } from './internal-users.schemas.js';
export { createInternalUser, getInternalUser } from './internal-users.service.js';
export { internalUserAdminRoutes, default as internalUserRoutes } from './internal-users.routes.js';
// A read for other modules (sessions name a user, audit events an actor).
export { findInternalUser } from './internal-users.repository.js';
