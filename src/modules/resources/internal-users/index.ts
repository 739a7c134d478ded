// internal-users (docs/ARCHITECTURE.md, "A module"): its public face.
export { InternalUser, InternalUserAccessUpdate, InternalUserCreate } from './internal-users.schemas.js';
export { createInternalUser, getInternalUser, workspaceCompanies } from './internal-users.service.js';
// Sign-in's write (modules/surfaces/sign-in): the signed-in user's own profile (the portal's account page).
export { changeOwnInternalUserProfile } from './internal-users.service.js';
export { internalUserAdminRoutes, default as internalUserRoutes } from './internal-users.routes.js';
// A read for other modules (sessions name a user, audit events an actor).
export { findInternalUser, findInternalUserByEmail, findInternalUserProfile } from './internal-users.repository.js';
// Writes for the staff lifecycle (modules/workflows/staff), which also reaches the modules that name a user.
export { deleteInternalUser, findInternalUserForUpdate, lockAdmins, updateInternalUserAccess } from './internal-users.repository.js';
