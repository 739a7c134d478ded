// health (docs/ARCHITECTURE.md, "A module"): its public face.
export { default as healthRoutes } from './health.routes.js';
