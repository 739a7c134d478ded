// directory (docs/ARCHITECTURE.md, "A module"): its public face: clients and companies.
export { ClientCreate } from './clients.schemas.js';
export { type CheckedClient, commitClients, createClient, prepareClients } from './clients.service.js';
export { createCompany } from './companies.service.js';
export { type Members, resolveMembers } from './members.service.js';
export { default as clientRoutes } from './clients.routes.js';
export { default as companyRoutes } from './companies.routes.js';
// Reads for other modules, under the caller's access: who may be billed, named, connected or exported.
export { clientsInCreationOrder, findClient, visibleClientCompanies } from './clients.repository.js';
export { existingCompanyIds, findCompany } from './companies.repository.js';
// Sign-in's reads and writes (modules/surfaces/sign-in): a client found by e-mail or invite, its sign-ins recorded, its
// own profile changed (the portal's account page).
export { findClientByEmail, findClientProfile, findInvitedClient, recordClientSignIn } from './clients.repository.js';
export { type OwnProfileChanges, changeOwnClientProfile } from './clients.service.js';
