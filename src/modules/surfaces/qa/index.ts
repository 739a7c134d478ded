// qa (docs/ARCHITECTURE.md, "A module"): its public face: QA principals, impersonation and agent tokens.
export { QaAgentTokenCreate, QaImpersonationTokenCreate, QaPrincipalCreate, QaPrincipalListQuery } from './qa.schemas.js';
export { createQaPrincipal, deleteQaPrincipal, listQaPrincipals, mintAgentToken, mintImpersonationToken } from './qa.service.js';
export { default as qaAdminRoutes } from './qa.routes.js';
