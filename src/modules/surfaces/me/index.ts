// me (docs/ARCHITECTURE.md, "A module"): its public face.
export { default as meRoutes } from './me.routes.js';
