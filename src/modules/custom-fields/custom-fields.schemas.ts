import { Type, type Static } from 'typebox';
import { Id, PageQuery, Timestamp } from '../../lib/schemas.js';

export const CUSTOM_FIELD_TYPES = ['text', 'number', 'email', 'url', 'phoneNumber', 'multiSelect', 'address'] as const;
export const CUSTOM_FIELD_ENTITIES = ['client', 'company'] as const;
export type CustomFieldType = (typeof CUSTOM_FIELD_TYPES)[number];
export type CustomFieldEntity = (typeof CUSTOM_FIELD_ENTITIES)[number];

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
  { ...PageQuery, entityType: Type.Optional(Type.Enum([...CUSTOM_FIELD_ENTITIES], { description: 'only the definitions of this entity' })) },
  { additionalProperties: false },
);
export type CustomFieldListQuery = Static<typeof CustomFieldListQuery>;

export const CustomFieldOptionListQuery = Type.Object(
  { ...PageQuery, label: Type.Optional(Type.String({ description: 'exact label' })) },
  { additionalProperties: false },
);
export type CustomFieldOptionListQuery = Static<typeof CustomFieldOptionListQuery>;

/** Any string: an id that is not a UUID finds nothing and is a 404, like an unknown one. */
export const CustomFieldParams = Type.Object({ id: Type.String({ description: 'custom field id' }) }, { additionalProperties: false });
