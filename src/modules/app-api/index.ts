// The app API module's public face (docs/ARCHITECTURE.md: a module): an app's declared API resources and builder secret.
export { default as appApiRoutes } from './app-api.routes.js';
