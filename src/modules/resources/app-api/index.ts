// app-api (docs/ARCHITECTURE.md, "A module"): its public face: an app's declared API resources and builder secret.
export { default as appApiRoutes } from './app-api.routes.js';
