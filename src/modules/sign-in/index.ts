// The sign-in module's public face (docs/ARCHITECTURE.md: a module): people signing in to their portal.
export { oidcCallbackRoutes, signInAdminRoutes, signInRoutes } from './sign-in.routes.js';
export { type ActiveSession, sessionForRoute, signedInPrincipal } from './sign-in.service.js';
