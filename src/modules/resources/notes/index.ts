// notes (docs/ARCHITECTURE.md, "A module"): its public face: notes on clients and companies.
export { default as noteRoutes } from './notes.routes.js';
