// workspaces (docs/ARCHITECTURE.md, "A module"): its public face.
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
