// tasks (docs/ARCHITECTURE.md, "A module"): its public face: tasks and task templates.
export { TaskTemplateCreate } from './tasks.schemas.js';
export { createTaskTemplate } from './tasks.service.js';
export { taskAdminRoutes, default as taskRoutes } from './tasks.routes.js';
export { unassignTasksOf } from './tasks.repository.js'; // the staff lifecycle (modules/workflows/staff)
