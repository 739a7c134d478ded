import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { RoutePolicy } from '../../../lib/policy.js';
import { Type } from 'typebox';
import { ADMIN_WRITE_ERRORS, adminDoc, IdParams, Page, PathId, READ_ERRORS, WorkspaceParams, WRITE_ERRORS } from '../../../lib/schemas.js';
import {
  AllFormResponsesQuery,
  FORM_FIELDS_MAX,
  FORM_RECIPIENTS_MAX,
  Form,
  FormCreate,
  FormListQuery,
  FormResponse,
  FormResponseComplete,
  FormResponseListQuery,
  FormResponseRequest,
  FormUpdate,
} from './forms.schemas.js';
import * as service from './forms.service.js';

/** Forms are the staff's: a client session is answered as if they were absent (it reads its responses instead). */
const STAFF_ONLY: RoutePolicy = { clientSession: 'none' };
/** A client session reads its own responses; requesting is the staff's (403). */
const CLIENT_READS: RoutePolicy = { clientSession: 'read' };
/** A client session completes its own responses. */
const CLIENT_ANSWERS: RoutePolicy = { clientSession: 'write' };
const tags = ['forms'];

const SEES = 'A client session sees its own responses; an internal user limited to some companies sees those requested in its companies.';

export default async function formRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { database, pageTokens } = app.ctx;

  app.get(
    '/forms',
    {
      config: { policy: STAFF_ONLY },
      schema: {
        tags,
        operationId: 'listForms',
        summary: 'List forms, newest first',
        description: 'Forms are made on the admin surface (or with `portal forms create`). Each with its response counts.',
        querystring: FormListQuery,
        response: { 200: Page(Form), ...READ_ERRORS },
      },
    },
    async (request) => service.listForms(database, request.caller, request.query, pageTokens),
  );
  app.get(
    '/forms/:id',
    {
      config: { policy: STAFF_ONLY },
      schema: {
        tags,
        operationId: 'retrieveForm',
        summary: 'Retrieve a form',
        description: 'With its fields, each with its `formFieldId`, and its counts. Staff only: client sessions get a 404.',
        params: IdParams,
        response: { 200: Form, ...READ_ERRORS },
      },
    },
    async (request) => service.getForm(database, request.caller, request.params.id),
  );
  app.get(
    '/forms/:id/form-responses',
    {
      config: { policy: STAFF_ONLY },
      schema: {
        tags,
        operationId: 'listFormResponses',
        summary: 'List the responses to a form, pending and completed, newest first',
        description: `${SEES} Filters clientId and status. A client session lists its own with GET /v1/form-responses.`,
        params: IdParams,
        querystring: FormResponseListQuery,
        response: { 200: Page(FormResponse), ...READ_ERRORS },
      },
    },
    async (request) => service.listResponsesOfForm(database, request.caller, request.params.id, request.query, pageTokens),
  );
  app.post(
    '/form-responses',
    {
      config: { policy: CLIENT_READS },
      schema: {
        tags,
        operationId: 'requestFormResponse',
        summary: 'Request a form of clients: a pending response and a formAssigned each',
        description:
          `clientCompanyIds: 1–${FORM_RECIPIENTS_MAX} clients, each in one of its companies (the deprecated clientIds: clients ` +
          'with one company). Each must be one the caller sees; repeats count once. Answers the first recipient’s response ' +
          '(the others are listed by GET /v1/forms/{id}/form-responses). A form that does not allow multiple submissions is ' +
          'requested of a client once: again is a 409, and nothing is written. All or none, in one transaction.',
        body: FormResponseRequest,
        response: { 200: FormResponse, ...WRITE_ERRORS },
      },
    },
    async (request) => service.requestFormResponse(database, request.caller, request.body),
  );
  app.get(
    '/form-responses',
    {
      config: { policy: CLIENT_READS },
      schema: {
        tags,
        operationId: 'listAllFormResponses',
        summary: 'List form responses of every form, newest first',
        description: `${SEES} Filters formId, clientId and status.`,
        querystring: AllFormResponsesQuery,
        response: { 200: Page(FormResponse), ...READ_ERRORS },
      },
    },
    async (request) => service.listFormResponses(database, request.caller, request.query, pageTokens),
  );
  app.get(
    '/form-responses/:id',
    {
      config: { policy: CLIENT_READS },
      schema: {
        tags,
        operationId: 'retrieveFormResponse',
        summary: 'Retrieve a form response',
        description: SEES,
        params: IdParams,
        response: { 200: FormResponse, ...READ_ERRORS },
      },
    },
    async (request) => service.getFormResponse(database, request.caller, request.params.id),
  );
  app.post(
    '/form-responses/:id/complete',
    {
      config: { policy: CLIENT_ANSWERS },
      schema: {
        tags,
        operationId: 'completeFormResponse',
        summary: 'Complete a form response with its answers: formResponseCompleted',
        description:
          'Only by the client it was requested of, as itself: its session or signed in (anyone else who sees it: 403); once (a completed one: 409). ' +
          'answers: formFieldId → string; every required field answered, no unknown field, each answer of its field’s type ' +
          '(shortAnswer one line, email, http(s) url, number, date YYYY-MM-DD); "" is no answer. Each failing field is named.',
        params: IdParams,
        body: FormResponseComplete,
        response: { 200: FormResponse, ...WRITE_ERRORS },
      },
    },
    async (request) => service.completeFormResponse(database, request.caller, request.params.id, request.body),
  );
}

/** Making forms on the admin surface (as `portal forms create`). */
export async function formAdminRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { database } = app.ctx;
  app.post(
    '/workspaces/:workspaceId/forms',
    {
      schema: {
        ...adminDoc,
        operationId: 'adminCreateForm',
        summary: `Create a form with 1–${FORM_FIELDS_MAX} fields: formCreated`,
        description:
          'Each field gets its formFieldId; visibility requestedClients unless given; allowMultipleSubmissions false unless given.',
        params: WorkspaceParams,
        body: FormCreate,
        response: { 200: Form, ...ADMIN_WRITE_ERRORS },
      },
    },
    async (request) => service.createForm(database, request.caller, request.body),
  );
  app.patch(
    '/workspaces/:workspaceId/forms/:id',
    {
      schema: {
        ...adminDoc,
        operationId: 'adminUpdateForm',
        summary: 'Edit a form: formEdited',
        description:
          'Changes only what is given (at least one of name, description, formFields, allowMultipleSubmissions, visibility). ' +
          '`formFields` is the whole list after the edit, in order: a field with its `formFieldId` is kept under that id ' +
          '(one of the form’s fields, at most once: else a 400 naming it), one without is new, one left out is removed. ' +
          'A change of name, description or fields makes a new version (`version` + 1): a completed response keeps ' +
          'showing the questions of the version it was answered on (its `formVersion`); a pending one answers the newest. ' +
          'allowMultipleSubmissions and visibility apply from now on. Records formEdited with the previous values; ' +
          'nothing changed: the form as it is, no event. Two edits at once of the fields: one wins, the other is a 409.',
        params: Type.Object({ workspaceId: PathId('workspace id'), id: PathId('form id') }, { additionalProperties: false }),
        body: FormUpdate,
        response: { 200: Form, ...ADMIN_WRITE_ERRORS },
      },
    },
    async (request) => service.updateForm(database, request.caller, request.params.id, request.body),
  );
}
