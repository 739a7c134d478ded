// custom-fields (docs/ARCHITECTURE.md, "A module"): its public face.
export { CustomFieldCreate, type CustomFieldOptionRef, type CustomFieldType, customFieldCreateRules } from './custom-fields.schemas.js';
export { createCustomField } from './custom-fields.service.js';
export { checkCustomFields, loadCustomFieldRules, mergeCustomFields, normalizeCustomFields } from './custom-fields.values.js';
export { default as customFieldRoutes } from './custom-fields.routes.js';
// A read for the CSV import: the options of the multi-select fields it fills.
export { optionsOfFields } from './custom-fields.repository.js';
