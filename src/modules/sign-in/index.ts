// The sign-in module's public face (docs/ARCHITECTURE.md: a module): people signing in to their portal.
export { PORTAL_REQUEST_HEADER, SIGN_IN_COOKIE, oidcCallbackRoutes, signInRoutes } from './sign-in.routes.js';
