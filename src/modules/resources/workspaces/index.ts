// workspaces (docs/ARCHITECTURE.md, "A module"): its public face.
export { WorkspaceCreate, WorkspaceListQuery, WorkspaceUpdate } from './workspaces.schemas.js';
export {
  createFirstWorkspace,
  createWorkspace,
  documentBrand,
  getWorkspace,
  listWorkspaces,
  operatorCaller,
  soleWorkspaceId,
  updateWorkspace,
} from './workspaces.service.js';
export { emailBrand, logoImage, logoOf, logoPath, logoUrls, portalLogo, removeLogo, setLogo } from './workspace-logo.service.js';
export { workspaceAdminRoutes, default as workspaceRoutes } from './workspaces.routes.js';
export { workspaceLogoAdminRoutes } from './workspace-logo.routes.js';
export { findClock, findClockForUpdate, findWorkspace, setClockOffset } from './workspaces.repository.js';
