// audit-log (docs/ARCHITECTURE.md, "A module"): its public face.
export { default as auditLogRoutes } from './audit-log.routes.js';
