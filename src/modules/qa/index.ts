// The QA module's public face (docs/ARCHITECTURE.md: a module): QA principals, impersonation and agent tokens.
export { QaAgentTokenCreate, QaImpersonationTokenCreate, QaPrincipalCreate, QaPrincipalListQuery } from './qa.schemas.js';
export { createQaPrincipal, deleteQaPrincipal, listQaPrincipals, mintAgentToken, mintImpersonationToken } from './qa.service.js';
export { default as qaAdminRoutes } from './qa.routes.js';
