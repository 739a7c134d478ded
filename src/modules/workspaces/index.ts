// The workspaces module's public face (docs/ARCHITECTURE.md: a module): all that other modules, the app and the CLI import.
export { WorkspaceCreate, WorkspaceListQuery, WorkspaceUpdate } from './workspaces.schemas.js';
export {
  createFirstWorkspace,
  createWorkspace,
  documentBrand,
  listWorkspaces,
  operatorCaller,
  soleWorkspaceId,
  updateWorkspace,
} from './workspaces.service.js';
export { workspaceAdminRoutes, default as workspaceRoutes } from './workspaces.routes.js';
export { findClock, findClockForUpdate, findWorkspace, setClockOffset } from './workspaces.repository.js';
