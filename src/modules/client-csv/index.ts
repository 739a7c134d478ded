// The client-csv module's public face (docs/ARCHITECTURE.md: a module): all that other modules, the app and the CLI import.
export { MAX_REPORTED_ERRORS, clientsCsv, importClients } from './client-csv.service.js';
export type { ImportProgress } from './client-csv.service.js';
export { clientCsvAdminRoutes } from './client-csv.routes.js';
