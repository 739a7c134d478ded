// client-csv (docs/ARCHITECTURE.md, "A module"): its public face.
export { MAX_REPORTED_ERRORS, clientsCsv, importClients } from './client-csv.service.js';
export type { ImportProgress } from './client-csv.service.js';
export { clientCsvAdminRoutes } from './client-csv.routes.js';
