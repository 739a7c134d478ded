// The audit-log module's public face (docs/ARCHITECTURE.md: a module): all that other modules, the app and the CLI import.
export { default as auditLogRoutes } from './audit-log.routes.js';
