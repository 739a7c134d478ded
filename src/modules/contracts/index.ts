// The contracts module's public face (docs/ARCHITECTURE.md: a module): contract templates and contracts.
export { ContractTemplateCreate } from './contracts.schemas.js';
export { createContractTemplate } from './contracts.service.js';
export { contractAdminRoutes, default as contractRoutes } from './contracts.routes.js';
