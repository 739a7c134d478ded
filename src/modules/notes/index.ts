// The notes module's public face (docs/ARCHITECTURE.md: a module): notes on clients and companies.
export { default as noteRoutes } from './notes.routes.js';
