import { type Static, Type } from 'typebox';
import { FORM_FIELD_TYPES, FORM_RESPONSE_STATUSES, FORM_VISIBILITIES } from '../../../db/schema.js';
import { Id, Line, PageQuery, RefId, Text, Timestamp } from '../../../lib/schemas.js';

const FORM_NAME_MAX = 255;
const FORM_DESCRIPTION_MAX = 10_000;
export const FORM_FIELDS_MAX = 100;
export const FORM_RECIPIENTS_MAX = 100;
const ANSWER_MAX = 10_000;

const NAME_RULE = `1–${FORM_NAME_MAX} characters`;
const FormName = Line({ maxLength: FORM_NAME_MAX, description: NAME_RULE });
const Description = Text({ maxLength: FORM_DESCRIPTION_MAX, description: `at most ${FORM_DESCRIPTION_MAX} characters` });
const FieldType = Type.Enum([...FORM_FIELD_TYPES], {
  description: 'shortAnswer (one line), longAnswer, email, url (http or https), number, date (YYYY-MM-DD): what an answer must be',
});
const Visibility = Type.Enum([...FORM_VISIBILITIES], {
  description: 'requestedClients (default): only the clients it is requested of; allClients: every client (recorded for the portal)',
});
const ResponseStatus = Type.Enum([...FORM_RESPONSE_STATUSES], { description: 'pending (requested) or completed (answered)' });

// ---- forms ----

const FormField = Type.Object(
  {
    formFieldId: Id,
    title: Type.String(),
    description: Type.String(),
    type: FieldType,
    isRequired: Type.Boolean(),
  },
  { additionalProperties: false },
);
export type FormField = Static<typeof FormField>;

export const Form = Type.Object(
  {
    id: Id,
    object: Type.Literal('form'),
    name: Type.String(),
    description: Type.String(),
    formFieldIds: Type.Array(Type.String(), { description: 'the fields’ ids, in the form’s order' }),
    formFields: Type.Array(FormField),
    allowMultipleSubmissions: Type.Boolean({ description: 'whether a client may be requested (and answer) it more than once' }),
    visibility: Visibility,
    formResponseRequests: Type.Integer({ description: 'responses requested (pending and completed)' }),
    formResponseSubmissions: Type.Integer({ description: 'responses completed' }),
    latestSubmissionDate: Type.Optional(Timestamp),
    version: Type.Integer({
      minimum: 1,
      description:
        'the form’s version: 1 when made, one more with each edit of its name, description or fields (a response keeps the version it was answered on)',
    }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { additionalProperties: false, title: 'Form' },
);
export type Form = Static<typeof Form>;

export const FormCreate = Type.Object(
  {
    name: FormName,
    description: Type.Optional(Description),
    formFields: Type.Array(
      Type.Object(
        {
          title: FormName,
          description: Type.Optional(Description),
          type: FieldType,
          isRequired: Type.Optional(Type.Boolean({ description: 'default false' })),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: FORM_FIELDS_MAX, description: `1–${FORM_FIELDS_MAX} fields, in order; each gets its formFieldId` },
    ),
    allowMultipleSubmissions: Type.Optional(Type.Boolean({ description: 'default false' })),
    visibility: Type.Optional(Visibility),
  },
  { additionalProperties: false, title: 'FormCreate' },
);
export type FormCreate = Static<typeof FormCreate>;

/** A field of an edited form: an existing one keeps its formFieldId (given), a new one gets its own. */
const EditedField = Type.Object(
  {
    formFieldId: Type.Optional(
      RefId('an existing field of the form, to keep it (its id, so answers stay comparable across versions); left out: a new field'),
    ),
    title: FormName,
    description: Type.Optional(Description),
    type: FieldType,
    isRequired: Type.Optional(Type.Boolean({ description: 'default false' })),
  },
  { additionalProperties: false },
);

export const FormUpdate = Type.Object(
  {
    name: Type.Optional(FormName),
    description: Type.Optional(Description),
    formFields: Type.Optional(
      Type.Array(EditedField, {
        minItems: 1,
        maxItems: FORM_FIELDS_MAX,
        description:
          `the form’s fields after the edit, whole and in order (1–${FORM_FIELDS_MAX}): a field left out is removed from the new ` +
          'version; one with a formFieldId keeps it, each at most once; one without gets a new formFieldId',
      }),
    ),
    allowMultipleSubmissions: Type.Optional(Type.Boolean({ description: 'from now on: responses already requested stay' })),
    visibility: Type.Optional(Visibility),
  },
  { additionalProperties: false, minProperties: 1, title: 'FormUpdate' },
);
export type FormUpdate = Static<typeof FormUpdate>;

export const FormListQuery = Type.Object({ ...PageQuery }, { additionalProperties: false });
export type FormListQuery = Static<typeof FormListQuery>;

// ---- responses ----

const ResponseField = Type.Object(
  {
    title: Type.String(),
    description: Type.String(),
    type: FieldType,
    isRequired: Type.Boolean(),
    answer: Type.Optional(Type.String({ description: 'present once answered' })),
  },
  { additionalProperties: false },
);

export const FormResponse = Type.Object(
  {
    id: Id,
    object: Type.Literal('formResponse'),
    formId: Type.String(),
    formName: Type.String(),
    formDescription: Type.String(),
    formFieldIds: Type.Array(Type.String()),
    formFields: Type.Record(Type.String(), ResponseField, { description: 'formFieldId → the field, with its answer once completed' }),
    allowMultipleSubmissions: Type.Boolean(),
    visibility: Visibility,
    clientId: Type.String(),
    companyId: Type.String(),
    status: ResponseStatus,
    formVersion: Type.Integer({
      minimum: 1,
      description:
        'the form’s version whose name, description and fields this response shows: the one it was answered on once completed; ' +
        'while pending, the form’s newest (a pending response answers the form as it is now)',
    }),
    submissionDate: Type.Optional(Timestamp),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { additionalProperties: false, title: 'FormResponse' },
);
export type FormResponse = Static<typeof FormResponse>;

const Recipient = Type.Object(
  {
    clientId: RefId('a client the caller sees'),
    companyId: RefId('one of the client’s companies'),
  },
  { additionalProperties: false },
);

export const FormResponseRequest = Type.Object(
  {
    formId: RefId('the form to request'),
    clientCompanyIds: Type.Optional(
      Type.Array(Recipient, {
        minItems: 1,
        maxItems: FORM_RECIPIENTS_MAX,
        description: `1–${FORM_RECIPIENTS_MAX} clients, each in a company`,
      }),
    ),
    clientIds: Type.Optional(
      Type.Array(RefId('a client with one company (deprecated: use clientCompanyIds)'), {
        minItems: 1,
        maxItems: FORM_RECIPIENTS_MAX,
        description: 'deprecated: clients with one company each; used only when clientCompanyIds is left out',
      }),
    ),
  },
  { additionalProperties: false, title: 'FormResponseRequest' },
);
export type FormResponseRequest = Static<typeof FormResponseRequest>;

export const FormResponseComplete = Type.Object(
  {
    answers: Type.Record(Type.String(), Text({ maxLength: ANSWER_MAX, description: `at most ${ANSWER_MAX} characters` }), {
      maxProperties: FORM_FIELDS_MAX,
      description: `formFieldId → answer (at most ${ANSWER_MAX} characters): every required field, none unknown; "" is no answer`,
    }),
  },
  { additionalProperties: false, title: 'FormResponseComplete' },
);
export type FormResponseComplete = Static<typeof FormResponseComplete>;

const responseFilters = {
  clientId: Type.Optional(Type.String({ description: 'the responses of this client' })),
  status: Type.Optional(ResponseStatus),
};

export const FormResponseListQuery = Type.Object({ ...PageQuery, ...responseFilters }, { additionalProperties: false });
export type FormResponseListQuery = Static<typeof FormResponseListQuery>;

export const AllFormResponsesQuery = Type.Object(
  { ...PageQuery, formId: Type.Optional(Type.String({ description: 'the responses to this form' })), ...responseFilters },
  { additionalProperties: false },
);
export type AllFormResponsesQuery = Static<typeof AllFormResponsesQuery>;
