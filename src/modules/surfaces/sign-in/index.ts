// sign-in (docs/ARCHITECTURE.md, "A module"): its public face: people signing in to their portal.
export { oidcCallbackRoutes, signInAdminRoutes, signInRoutes } from './sign-in.routes.js';
export { type ActiveSession, inviteInternalUser, sessionForRoute, signedInPrincipal } from './sign-in.service.js';
