// staff (docs/ARCHITECTURE.md, "A module"): its public face: an internal user added (and invited), its access changed
// or the user removed, across the modules that name a user (internal users, credentials, tasks, sign-in). Nothing
// imports it but the app and the CLI.
export { changeInternalUserAccess, removeInternalUser } from './staff.service.js';
export { staffAdminRoutes, default as staffRoutes } from './staff.routes.js';
