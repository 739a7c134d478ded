import { type Static, Type } from 'typebox';
import { CONTRACT_FIELD_TYPES, CONTRACT_INPUT_TYPES, CONTRACT_STATUSES } from '../../../db/schema.js';
import { Id, Line, PageQuery, RefId, Text, Timestamp } from '../../../lib/schemas.js';

const TEMPLATE_NAME_MAX = 255;
export const CONTRACT_FIELDS_MAX = 100;
const VALUE_MAX = 1_000;

const FieldType = Type.Enum([...CONTRACT_FIELD_TYPES], {
  description: 'signature and initials (the signer’s typed name or initials), text, date (YYYY-MM-DD)',
});
const InputType = Type.Enum([...CONTRACT_INPUT_TYPES], {
  description: 'client: filled by the recipient when signing; fixed: the template’s value; variable: given when the contract is sent',
});
const Status = Type.Enum([...CONTRACT_STATUSES], { description: 'pending (sent) or signed' });

const ContractField = Type.Object(
  {
    id: Type.String(),
    type: FieldType,
    inputType: InputType,
    isOptional: Type.Boolean(),
    page: Type.Integer({ description: 'the document page it is on, from 1' }),
    label: Type.Optional(Type.String()),
    value: Type.Optional(Type.String({ description: 'fixed and variable fields: their value; client fields: once signed' })),
  },
  { additionalProperties: false },
);
export type ContractField = Static<typeof ContractField>;

export const ContractTemplate = Type.Object(
  {
    id: Id,
    object: Type.Literal('contractTemplate'),
    name: Type.String(),
    fields: Type.Array(ContractField),
    fileUrl: Type.Optional(Type.String({ description: 'the document, as the operator gave it' })),
    requestsCount: Type.Integer({ description: 'contracts sent from it' }),
    submissionsCount: Type.Integer({ description: 'contracts signed' }),
    latestSubmissionDate: Type.Optional(Timestamp),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { additionalProperties: false, title: 'ContractTemplate' },
);
export type ContractTemplate = Static<typeof ContractTemplate>;

export const ContractTemplateCreate = Type.Object(
  {
    name: Line({ maxLength: TEMPLATE_NAME_MAX, description: `1–${TEMPLATE_NAME_MAX} characters` }),
    // Linear: a host's first character, then any non-space; no control character anywhere.
    fileUrl: Type.Optional(
      Type.String({
        maxLength: 2048,
        pattern: '^https?://[^\\s/\\u0000-\\u001F\\u007F-\\u009F][^\\s\\u0000-\\u001F\\u007F-\\u009F]*$',
        description: 'an http(s) URL',
      }),
    ),
    fields: Type.Array(
      Type.Object(
        {
          id: Type.Optional(
            Type.String({
              minLength: 1,
              maxLength: 100,
              pattern: '^[A-Za-z0-9_-]+$',
              description: 'letters, digits, _ and -; unique in the template (the key of variableValues); generated when left out',
            }),
          ),
          type: FieldType,
          inputType: InputType,
          isOptional: Type.Optional(Type.Boolean({ description: 'default false' })),
          page: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000, description: 'default 1' })),
          label: Type.Optional(Text({ maxLength: TEMPLATE_NAME_MAX, description: `at most ${TEMPLATE_NAME_MAX} characters` })),
          value: Type.Optional(Text({ maxLength: VALUE_MAX, description: 'required on a fixed field, and only there' })),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: CONTRACT_FIELDS_MAX, description: `1–${CONTRACT_FIELDS_MAX} fields, in order` },
    ),
  },
  { additionalProperties: false, title: 'ContractTemplateCreate' },
);
export type ContractTemplateCreate = Static<typeof ContractTemplateCreate>;

export const ContractTemplateListQuery = Type.Object(
  { ...PageQuery, name: Type.Optional(Type.String({ description: 'templates of exactly this name' })) },
  { additionalProperties: false },
);
export type ContractTemplateListQuery = Static<typeof ContractTemplateListQuery>;

export const Contract = Type.Object(
  {
    id: Id,
    object: Type.Literal('contract'),
    contractTemplateId: Type.String(),
    name: Type.String({ description: 'the template’s name when sent' }),
    fields: Type.Array(ContractField, { description: 'the template’s fields when sent, with the values given so far' }),
    fileUrl: Type.Optional(Type.String()),
    clientId: Type.String(),
    recipientId: Type.String({ description: 'deprecated: the same as clientId' }),
    companyId: Type.String(),
    status: Status,
    shareDate: Timestamp,
    submissionDate: Type.Optional(Timestamp),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { additionalProperties: false, title: 'Contract' },
);
export type Contract = Static<typeof Contract>;

const Values = (description: string) =>
  Type.Record(Type.String(), Text({ maxLength: VALUE_MAX, description: `at most ${VALUE_MAX} characters` }), {
    maxProperties: CONTRACT_FIELDS_MAX,
    description,
  });
/** variableValues as an object, also what its JSON text form must parse to. */
export const VariableValues = Values('field id → value');

export const ContractSend = Type.Object(
  {
    contractTemplateId: RefId('the template to send'),
    clientId: Type.Optional(RefId('the recipient: a client the caller sees (required unless recipientId gives it)')),
    recipientId: Type.Optional(RefId('deprecated: the same as clientId')),
    companyId: Type.Optional(RefId('one of the client’s companies: required when it has several')),
    variableValues: Type.Optional(
      Type.Union([Type.String({ maxLength: 100_000 }), VariableValues], {
        description:
          'the values of the template’s variable fields, field id → string: a JSON object, or its text (as the SDK declares); ' +
          'every variable field that is not optional, and no other',
      }),
    ),
  },
  { additionalProperties: false, title: 'ContractSend' },
);
export type ContractSend = Static<typeof ContractSend>;

export const ContractSign = Type.Object(
  {
    values: Values(
      `field id → value (at most ${VALUE_MAX} characters) of the fields the client fills: every one that is not optional, no other; ` +
        '"" is no value',
    ),
  },
  { additionalProperties: false, title: 'ContractSign' },
);
export type ContractSign = Static<typeof ContractSign>;

export const ContractListQuery = Type.Object(
  {
    ...PageQuery,
    contractTemplateId: Type.Optional(Type.String({ description: 'contracts sent from this template' })),
    clientId: Type.Optional(Type.String({ description: 'contracts sent to this client' })),
    recipientId: Type.Optional(Type.String({ description: 'deprecated: the same as clientId' })),
    status: Type.Optional(Status),
  },
  { additionalProperties: false },
);
export type ContractListQuery = Static<typeof ContractListQuery>;
