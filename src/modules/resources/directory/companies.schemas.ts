import { Type, type Static } from 'typebox';
import { CustomFieldsInput, CustomFieldsOutput, Id, PageQuery, SearchQuery, Timestamp } from '../../../lib/schemas.js';

const HexColor = Type.String({ pattern: '^#[0-9a-fA-F]{6}$', description: 'hex colour, e.g. #1a2b3c' });
const Name = Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' });

export const Company = Type.Object(
  {
    id: Id,
    object: Type.Literal('company'),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    name: Type.String(),
    customFields: CustomFieldsOutput,
    fallbackColor: HexColor,
    iconImageUrl: Type.Optional(Type.String({ format: 'uri' })),
    isPlaceholder: Type.Boolean({ description: 'true when auto-created as a placeholder for a client; read-only' }),
  },
  { title: 'Company' },
);
export type Company = Static<typeof Company>;

export const CompanyCreate = Type.Object(
  {
    name: Name,
    customFields: Type.Optional(CustomFieldsInput),
    fallbackColor: Type.Optional(HexColor),
    iconImageUrl: Type.Optional(Type.String({ format: 'uri', maxLength: 2048 })),
    isPlaceholder: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, title: 'CompanyCreate' },
);
export type CompanyCreate = Static<typeof CompanyCreate>;

export const CompanyUpdate = Type.Object(
  { name: Type.Optional(Name), customFields: Type.Optional(CustomFieldsInput) },
  { additionalProperties: false, title: 'CompanyUpdate' },
);
export type CompanyUpdate = Static<typeof CompanyUpdate>;

export const CompanyListQuery = Type.Object(
  {
    ...PageQuery,
    name: Type.Optional(Type.String({ description: 'exact name' })),
    isPlaceholder: Type.Optional(Type.Boolean()),
    q: SearchQuery('the companies with a word of their name starting with it'),
  },
  { additionalProperties: false },
);
export type CompanyListQuery = Static<typeof CompanyListQuery>;

/** Server-managed on update: sending one is a 400 saying it is read-only. */
export const COMPANY_READ_ONLY = ['id', 'object', 'createdAt', 'updatedAt', 'isPlaceholder'] as const;
