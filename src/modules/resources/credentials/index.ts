// credentials (docs/ARCHITECTURE.md, "A module"): its public face.
export { ApiKeyCreate } from './api-keys.schemas.js';
export { addApiKey, createApiKey, listApiKeys, revokeApiKey, verifyApiKey } from './api-keys.service.js';
export { SessionCreate } from './sessions.schemas.js';
export { createSession, revokeSession, verifySession } from './sessions.service.js';
export { addBearerToken, verifyBearerToken } from './tokens.service.js';
export { apiKeyAdminRoutes } from './api-keys.routes.js';
export { default as sessionAdminRoutes } from './sessions.routes.js';
export { tokenAdminRoutes, default as tokenRoutes } from './tokens.routes.js';
export { revokeSessionsOf } from './sessions.repository.js'; // the staff lifecycle (modules/workflows/staff)
// The QA surface (modules/surfaces/qa): an app key by id, and the sessions of a client.
export { findActiveApiKey } from './api-keys.repository.js';
export { revokeClientSessions } from './sessions.repository.js';
