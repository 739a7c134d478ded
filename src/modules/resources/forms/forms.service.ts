import { randomUUID } from 'node:crypto';
import { recordAudit } from '../../../audit/index.js';
import type { Database } from '../../../db/database.js';
import { listAs } from '../../../db/paging.js';
import { unitOfWork } from '../../../db/unit-of-work.js';
import { type Caller, ownUserOf } from '../../../lib/caller.js';
import { isoAt } from '../../../lib/clock.js';
import { type FieldProblem, errors, orNotFound } from '../../../lib/errors.js';
import { newRowId } from '../../../lib/row-id.js';
import { visibleClientCompanies } from '../directory/index.js';
import * as repo from './forms.repository.js';
import type { Form, FormCreate, FormField, FormResponse, FormResponseComplete, FormResponseRequest, FormUpdate } from './forms.schemas.js';

type FormFieldType = FormField['type'];

export const listForms = listAs(repo.listForms);
export const listFormResponses = listAs(repo.listResponses);

export async function getForm(database: Database, caller: Caller, id: string): Promise<Form> {
  return orNotFound(await repo.findForm(database.db, caller.access, id), 'Form');
}

export async function getFormResponse(database: Database, caller: Caller, id: string): Promise<FormResponse> {
  return orNotFound(await repo.findResponse(database.db, caller.access, id), 'Form response');
}

/** GET /v1/forms/{id}/form-responses: the form must be the workspace's (404 otherwise), its responses as the caller sees them. */
export async function listResponsesOfForm(
  database: Database,
  caller: Caller,
  formId: string,
  query: Parameters<typeof repo.listResponsesOf>[3],
  tokens: Parameters<typeof repo.listResponsesOf>[4],
) {
  const form = await getForm(database, caller, formId);
  return repo.listResponsesOf(database.db, caller.access, form.id, query, tokens);
}

/** Who requested: the session's end user, else the API key (the `portal` command: system). */
const requesterOf = (caller: Caller) => caller.actor.actorId ?? caller.actor.apiKeyRef ?? 'system';

/** A form (admin surface and `portal forms create`): formCreated. */
export async function createForm(database: Database, caller: Caller, input: FormCreate): Promise<Form> {
  const at = isoAt(caller.actor.at);
  const formFields: FormField[] = input.formFields.map((field) => ({
    formFieldId: randomUUID(),
    title: field.title,
    description: field.description ?? '',
    type: field.type,
    isRequired: field.isRequired ?? false,
  }));
  const form: Form = {
    id: newRowId(),
    object: 'form',
    name: input.name,
    description: input.description ?? '',
    formFieldIds: formFields.map((field) => field.formFieldId),
    formFields,
    allowMultipleSubmissions: input.allowMultipleSubmissions ?? false,
    visibility: input.visibility ?? 'requestedClients',
    formResponseRequests: 0,
    formResponseSubmissions: 0,
    version: 1,
    createdAt: at,
    updatedAt: at,
  };
  await unitOfWork(database, async (work) => {
    repo.insertForm(work, caller.access, form);
    recordAudit(work, caller.actor, {
      eventType: 'formCreated',
      description: `Form "${form.name}" created`,
      context: { formId: form.id },
      subject: { object: 'form', id: form.id, data: form, companyId: null },
    });
  });
  return form;
}

/**
 * The fields after an edit: one with a formFieldId keeps that field's id (it must be one of the form's fields, each
 * at most once), one without gets a new id. Every failing field named.
 */
function editedFields(form: Form, given: NonNullable<FormUpdate['formFields']>, problems: FieldProblem[]): FormField[] {
  const current = new Set(form.formFieldIds);
  const seen = new Map<string, number>();
  return given.map((field, index) => {
    const path = `body.formFields.${index}.formFieldId`;
    let formFieldId: string = randomUUID();
    if (field.formFieldId !== undefined) {
      const earlier = seen.get(field.formFieldId);
      if (!current.has(field.formFieldId)) problems.push({ path, message: 'is not a field of this form' });
      else if (earlier !== undefined) problems.push({ path, message: `names the field already kept at formFields.${earlier}` });
      else seen.set(field.formFieldId, index);
      formFieldId = field.formFieldId;
    }
    return {
      formFieldId,
      title: field.title,
      description: field.description ?? '',
      type: field.type,
      isRequired: field.isRequired ?? false,
    };
  });
}

/**
 * Edits a form (admin surface and `portal forms update`): formEdited with what it was. Changing the name, the
 * description or the fields makes a new version (`version` + 1), kept whole: a completed response keeps showing
 * the version it was answered on; a pending one answers the newest (its fields are the form's as it is when
 * answered). allowMultipleSubmissions and visibility are settings of the form, not of a version: they apply from
 * now on (responses already requested stay). Nothing changed: the form as it is, and no event.
 */
export async function updateForm(database: Database, caller: Caller, id: string, input: FormUpdate): Promise<Form> {
  return unitOfWork(
    database,
    async (work) => {
      const previous = orNotFound(await repo.findForm(work.db, caller.access, id), 'Form');
      const problems: FieldProblem[] = [];
      const formFields = input.formFields === undefined ? previous.formFields : editedFields(previous, input.formFields, problems);
      if (problems.length > 0) throw errors.invalidFields(problems);
      const edited = {
        name: input.name ?? previous.name,
        description: input.description ?? previous.description,
        formFields,
        allowMultipleSubmissions: input.allowMultipleSubmissions ?? previous.allowMultipleSubmissions,
        visibility: input.visibility ?? previous.visibility,
      };
      const previousAttributes: Record<string, unknown> = {};
      for (const key of Object.keys(edited) as (keyof typeof edited)[]) {
        if (JSON.stringify(edited[key]) !== JSON.stringify(previous[key])) previousAttributes[key] = previous[key];
      }
      if (Object.keys(previousAttributes).length === 0) return previous;
      const newVersion = 'name' in previousAttributes || 'description' in previousAttributes || 'formFields' in previousAttributes;
      const form: Form = {
        ...previous,
        ...edited,
        formFieldIds: formFields.map((field) => field.formFieldId),
        version: newVersion ? previous.version + 1 : previous.version,
        updatedAt: isoAt(caller.actor.at),
      };
      repo.updateForm(work, caller.access, form, previous);
      recordAudit(work, caller.actor, {
        eventType: 'formEdited',
        description: `Form "${form.name}" edited${newVersion ? ` (version ${form.version})` : ''}`,
        context: { formId: form.id, version: form.version, previousVersion: previous.version },
        previousAttributes,
        subject: { object: 'form', id: form.id, data: form, companyId: null },
      });
      return form;
    },
    { transaction: true },
  );
}

/**
 * POST /v1/form-responses: one pending response per recipient (a client in one of its companies, each one the
 * caller sees), a formAssigned for each, in one transaction. Answers the first recipient's response (the SDK
 * declares one object); listFormResponses lists them all. A form that does not allow multiple submissions is
 * requested of a client once (409 if it already has a response to it). Every failing field in one 400.
 */
export async function requestFormResponse(database: Database, caller: Caller, input: FormResponseRequest): Promise<FormResponse> {
  const problems: FieldProblem[] = [];
  const recipients: { clientId: string; companyId?: string; path: string }[] = input.clientCompanyIds
    ? input.clientCompanyIds.map((r, i) => ({ clientId: r.clientId, companyId: r.companyId, path: `body.clientCompanyIds.${i}` }))
    : (input.clientIds ?? []).map((clientId, i) => ({ clientId, path: `body.clientIds.${i}` }));
  if (recipients.length === 0) problems.push({ path: 'body.clientCompanyIds', message: 'is required: the clients, each in a company' });
  const access = caller.access;
  const [form, companiesOf] = await Promise.all([
    repo.findForm(database.db, access, input.formId),
    visibleClientCompanies(
      database.db,
      access,
      recipients.map((r) => r.clientId),
    ),
  ]);
  if (!form) problems.push({ path: 'body.formId', message: 'is not a form of this workspace' });
  const pairs = new Map<string, { clientId: string; companyId: string }>();
  for (const { clientId: id, companyId, path } of recipients) {
    const companies = companiesOf.get(id);
    const clientPath = input.clientCompanyIds ? `${path}.clientId` : path;
    if (!companies) {
      problems.push({ path: clientPath, message: 'is not a client of this workspace' });
    } else if (companyId === undefined) {
      if (companies.length === 1) pairs.set(`${id}/${companies[0]}`, { clientId: id, companyId: companies[0] });
      else problems.push({ path: clientPath, message: 'belongs to several companies: name one with clientCompanyIds' });
    } else if (!companies.includes(companyId)) {
      problems.push({ path: `${path}.companyId`, message: 'is not a company of this client' });
    } else {
      pairs.set(`${id}/${companyId}`, { clientId: id, companyId });
    }
  }
  if (problems.length > 0 || !form) throw errors.invalidFields(problems);

  const at = isoAt(caller.actor.at);
  const formFields = Object.fromEntries(form.formFields.map(({ formFieldId, ...field }) => [formFieldId, field]));
  const responses: FormResponse[] = [...pairs.values()].map(({ clientId, companyId }) => ({
    id: newRowId(),
    object: 'formResponse',
    formId: form.id,
    formName: form.name,
    formDescription: form.description,
    formFieldIds: form.formFieldIds,
    formFields,
    allowMultipleSubmissions: form.allowMultipleSubmissions,
    visibility: form.visibility,
    clientId,
    companyId,
    status: 'pending',
    formVersion: form.version,
    createdAt: at,
    updatedAt: at,
  }));
  const clientIds = [...new Set(responses.map((response) => response.clientId))];
  if (!form.allowMultipleSubmissions && clientIds.length < responses.length) {
    throw errors.conflict(`Form ${form.id} does not allow multiple submissions: request it of each client once.`);
  }
  return unitOfWork(
    database,
    async (work) => {
      if (!form.allowMultipleSubmissions) {
        const already = await repo.clientsWithResponse(work.db, access, form.id, clientIds);
        if (already.size > 0) {
          throw errors.conflict(
            `Form ${form.id} does not allow multiple submissions, and was already requested of ${[...already].sort().join(', ')}.`,
          );
        }
      }
      for (const response of responses) {
        repo.insertResponse(
          work,
          access,
          response,
          requesterOf(caller),
          input.clientCompanyIds ? 'body.clientCompanyIds' : 'body.clientIds',
        );
        recordAudit(work, caller.actor, {
          eventType: 'formAssigned',
          description: `Form "${form.name}" requested of client ${response.clientId}`,
          context: { formId: form.id, formResponseId: response.id, clientId: response.clientId },
          subject: { object: 'formResponse', id: response.id, data: response, companyId: response.companyId },
        });
      }
      return responses[0];
    },
    { transaction: true },
  );
}

/** Whether an answer is what its field's type asks for; the rule broken, or undefined. */
function answerProblem(type: FormFieldType, answer: string): string | undefined {
  switch (type) {
    case 'shortAnswer':
      return /[\r\n]/.test(answer) ? 'must be one line' : undefined;
    case 'email':
      return /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(answer) ? undefined : 'must be an e-mail address';
    case 'url':
      return /^https?:\/\/[^\s/]+/i.test(answer) ? undefined : 'must be an http or https URL';
    case 'number':
      return /^-?\d+(\.\d+)?$/.test(answer.trim()) ? undefined : 'must be a number';
    case 'date': {
      const valid = /^\d{4}-\d{2}-\d{2}$/.test(answer) && new Date(`${answer}T00:00:00Z`).toISOString().startsWith(answer);
      return valid ? undefined : 'must be a date (YYYY-MM-DD)';
    }
    default:
      return undefined;
  }
}

/**
 * POST /v1/form-responses/{id}/complete: the client it was requested of answers it (as itself; anyone else
 * who sees the response: 403), once (409 when completed). Every required field answered, none unknown, each
 * of its type; "" is no answer. formResponseCompleted.
 */
export async function completeFormResponse(
  database: Database,
  caller: Caller,
  id: string,
  input: FormResponseComplete,
): Promise<FormResponse> {
  return unitOfWork(
    database,
    async (work) => {
      const previous = orNotFound(await repo.findResponse(work.db, caller.access, id), 'Form response');
      const own = ownUserOf(caller);
      if (own?.type !== 'client' || own.id !== previous.clientId) {
        throw errors.forbidden(
          'Only the client a form response was requested of completes it, as itself (its session, or signed in to the portal).',
        );
      }
      if (previous.status === 'completed') throw errors.conflict(`Form response ${previous.id} is already completed.`);
      const problems: FieldProblem[] = [];
      const answers: Record<string, string> = {};
      for (const [fieldId, answer] of Object.entries(input.answers)) {
        const field = Object.hasOwn(previous.formFields, fieldId) ? previous.formFields[fieldId] : undefined;
        const path = `body.answers.${fieldId}`;
        if (!field) problems.push({ path, message: 'is not a field of this form' });
        else if (answer !== '') {
          const problem = answerProblem(field.type, answer);
          if (problem) problems.push({ path, message: problem });
          else answers[fieldId] = answer;
        }
      }
      for (const fieldId of previous.formFieldIds) {
        if (previous.formFields[fieldId]?.isRequired && (input.answers[fieldId] ?? '') === '')
          problems.push({ path: `body.answers.${fieldId}`, message: 'is required' });
      }
      if (problems.length > 0) throw errors.invalidFields(problems);
      const at = isoAt(caller.actor.at);
      const response: FormResponse = {
        ...previous,
        formFields: Object.fromEntries(
          Object.entries(previous.formFields).map(([fieldId, field]) => [
            fieldId,
            answers[fieldId] === undefined ? field : { ...field, answer: answers[fieldId] },
          ]),
        ),
        status: 'completed',
        // The version whose fields were checked above: the form's newest when it was read, in this transaction.
        formVersion: previous.formVersion,
        submissionDate: at,
        updatedAt: at,
      };
      repo.completeResponse(work, caller.access, response);
      recordAudit(work, caller.actor, {
        eventType: 'formResponseCompleted',
        description: `Form "${response.formName}" completed by client ${response.clientId}`,
        context: { formId: response.formId, formResponseId: response.id, clientId: response.clientId },
        subject: { object: 'formResponse', id: response.id, data: response, companyId: response.companyId },
      });
      return response;
    },
    { transaction: true },
  );
}
