// contracts (docs/ARCHITECTURE.md, "A module"): its public face: contract templates and contracts.
export { ContractTemplateCreate } from './contracts.schemas.js';
export { createContractTemplate } from './contracts.service.js';
export { contractAdminRoutes, default as contractRoutes } from './contracts.routes.js';
