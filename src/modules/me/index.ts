// The me module's public face (docs/ARCHITECTURE.md: a module): all that other modules, the app and the CLI import.
export { default as meRoutes } from './me.routes.js';
