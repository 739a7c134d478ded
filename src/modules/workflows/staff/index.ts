// staff (docs/ARCHITECTURE.md, "A module"): its public face: an internal user's access changed or the user
// removed, across the modules that name a user (internal users, credentials, tasks). Nothing imports it but the app.
export { changeInternalUserAccess, removeInternalUser } from './staff.service.js';
export { default as staffAdminRoutes } from './staff.routes.js';
