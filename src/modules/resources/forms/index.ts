// forms (docs/ARCHITECTURE.md, "A module"): its public face: forms and form responses.
export { FormCreate, FormUpdate } from './forms.schemas.js';
export { createForm, updateForm } from './forms.service.js';
export { formAdminRoutes, default as formRoutes } from './forms.routes.js';
