export { WorkspaceCreate, WorkspaceUpdate } from './workspaces.schemas.js';
export { createFirstWorkspace, createWorkspace, operatorCaller, updateWorkspace } from './workspaces.service.js';
export { workspaceAdminRoutes, default as workspaceRoutes } from './workspaces.routes.js';
