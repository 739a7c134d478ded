// sign-in (docs/ARCHITECTURE.md, "A module"): its public face: people signing in to their portal.
export { oidcCallbackRoutes, signInAdminRoutes, signInRoutes } from './sign-in.routes.js';
export { type ActiveSession, sessionForRoute, signedInPrincipal } from './sign-in.service.js';
