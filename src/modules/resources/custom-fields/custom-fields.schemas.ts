import { Type, type Static } from 'typebox';
import type { FieldProblem } from '../../../lib/errors.js';
import { Id, Name, PageQuery, Timestamp } from '../../../lib/schemas.js';
import { CUSTOM_FIELD_ENTITIES, CUSTOM_FIELD_TYPES } from '../../../db/schema.js';
export type { CustomFieldEntity, CustomFieldType } from '../../../db/schema.js';

const FieldType = Type.Enum([...CUSTOM_FIELD_TYPES]);
const EntityType = Type.Enum([...CUSTOM_FIELD_ENTITIES]);

/** An option as embedded in its custom field. */
export const CustomFieldOptionRef = Type.Object(
  { id: Id, key: Type.String(), label: Type.String() },
  { additionalProperties: false, title: 'CustomFieldOptionRef' },
);
export type CustomFieldOptionRef = Static<typeof CustomFieldOptionRef>;

export const CustomField = Type.Object(
  {
    id: Id,
    object: Type.Literal('customField'),
    key: Type.String({ description: 'the key in `customFields` of clients or companies' }),
    name: Type.String(),
    type: FieldType,
    entityType: EntityType,
    options: Type.Optional(Type.Array(CustomFieldOptionRef, { description: 'multiSelect fields only, in the order they were given' })),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { additionalProperties: false, title: 'CustomField' },
);
export type CustomField = Static<typeof CustomField>;

export const CustomFieldOption = Type.Object(
  { id: Id, object: Type.Literal('customFieldOption'), key: Type.String(), label: Type.String() },
  { additionalProperties: false, title: 'CustomFieldOption' },
);
export type CustomFieldOption = Static<typeof CustomFieldOption>;

export const CustomFieldListQuery = Type.Object(
  {
    ...PageQuery,
    entityType: Type.Optional(Type.Enum([...CUSTOM_FIELD_ENTITIES], { description: 'only the definitions of this entity' })),
  },
  { additionalProperties: false },
);
export type CustomFieldListQuery = Static<typeof CustomFieldListQuery>;

export const CustomFieldOptionListQuery = Type.Object(
  { ...PageQuery, label: Type.Optional(Type.String({ description: 'exact label' })) },
  { additionalProperties: false },
);
export type CustomFieldOptionListQuery = Static<typeof CustomFieldOptionListQuery>;

export const CustomFieldCreate = Type.Object(
  {
    entityType: EntityType,
    key: Type.String({ pattern: '^[a-zA-Z][a-zA-Z0-9_]{0,63}$', description: 'a letter, then letters, digits and _ (at most 64 in all)' }),
    name: Name,
    type: FieldType,
    options: Type.Optional(
      Type.Array(Type.String({ pattern: '\\S' }), {
        maxItems: 100,
        description: 'option labels: multiSelect only, and required for it; at most 100',
      }),
    ),
  },
  { additionalProperties: false, title: 'CustomFieldCreate' },
);
export type CustomFieldCreate = Static<typeof CustomFieldCreate>;

/**
 * What CustomFieldCreate cannot say field by field: options for multiSelect fields only, at least one,
 * no label twice (once trimmed). Paths and wording as the schema's problems: `options`, `options.2`.
 */
export function customFieldCreateRules(input: CustomFieldCreate): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const labels = input.options;
  if (input.type !== 'multiSelect') {
    if (labels !== undefined) problems.push({ path: 'options', message: 'are allowed only for multiSelect fields' });
  } else if (!labels || labels.length === 0) {
    problems.push({ path: 'options', message: 'must list at least one label for a multiSelect field' });
  } else {
    const seen = new Set<string>();
    labels.forEach((label, i) => {
      const trimmed = label.trim();
      if (trimmed && seen.has(trimmed)) problems.push({ path: `options.${i}`, message: 'repeats an earlier label' });
      seen.add(trimmed);
    });
  }
  return problems;
}
