export { default as auditLogRoutes } from './audit-log.routes.js';
