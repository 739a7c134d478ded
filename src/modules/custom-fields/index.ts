export { optionsOfFields } from './custom-fields.repository.js';
export { CustomFieldCreate, customFieldCreateRules } from './custom-fields.schemas.js';
export type { CustomFieldOptionRef, CustomFieldType } from './custom-fields.schemas.js';
export { createCustomField } from './custom-fields.service.js';
export { checkCustomFields, loadCustomFieldRules, mergeCustomFields, normalizeCustomFields } from './custom-fields.values.js';
export { default as customFieldRoutes } from './custom-fields.routes.js';
