export { clientsInCreationOrder, findClient, visibleClientCompanies } from './clients.repository.js';
export { ClientCreate } from './clients.schemas.js';
export { commitClients, createClient, prepareClients } from './clients.service.js';
export type { CheckedClient } from './clients.service.js';
export { existingCompanyIds } from './companies.repository.js';
export { createCompany } from './companies.service.js';
export { default as clientRoutes } from './clients.routes.js';
export { default as companyRoutes } from './companies.routes.js';
