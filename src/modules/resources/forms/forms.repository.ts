import type { ExpressionBuilder, Kysely } from 'kysely';
import { type Page, type PageTokens, fetchPage, pageScope } from '../../../db/paging.js';
import { nonEmpty, objectFields } from '../../../db/rows.js';
import type { DB, FormResponsesTable, FormsTable } from '../../../db/schema.js';
import type { UnitOfWork } from '../../../db/unit-of-work.js';
import type { Access } from '../../../lib/caller.js';
import type { AllFormResponsesQuery, Form, FormField, FormListQuery, FormResponse, FormResponseListQuery } from './forms.schemas.js';

/** Forms' storage: fields and answers as JSON text, 0/1 booleans; the counts read with the form. */

type FormRow = FormsTable & { requests: number | string; submissions: number | string; latest_submission_at: string | null };

function toForm(row: FormRow): Form {
  const fields = JSON.parse(row.fields) as FormField[];
  const form: Form = {
    ...objectFields(row, 'form'),
    name: row.name,
    description: row.description,
    formFieldIds: fields.map((field) => field.formFieldId),
    formFields: fields,
    allowMultipleSubmissions: row.allow_multiple_submissions === 1,
    visibility: row.visibility,
    formResponseRequests: Number(row.requests),
    formResponseSubmissions: Number(row.submissions),
    version: Number(row.version),
  };
  if (row.latest_submission_at !== null) form.latestSubmissionDate = row.latest_submission_at;
  return form;
}

/** The forms of the workspace with their response counts (each a lookup of form_responses_form_page). */
function formsWithCounts(db: Kysely<DB>, access: Access) {
  const responses = (eb: ExpressionBuilder<DB, 'forms'>) =>
    eb
      .selectFrom('form_responses')
      .where('form_responses.workspace_id', '=', access.workspaceId)
      .whereRef('form_responses.form_id', '=', 'forms.id');
  return db
    .selectFrom('forms')
    .selectAll('forms')
    .select((eb) => [
      responses(eb)
        .select((e) => e.fn.countAll<number>().as('n'))
        .as('requests'),
      responses(eb)
        .where('form_responses.status', '=', 'completed')
        .select((e) => e.fn.countAll<number>().as('n'))
        .as('submissions'),
      responses(eb)
        .select((e) => e.fn.max('form_responses.submitted_at').as('at'))
        .as('latest_submission_at'),
    ])
    .where('forms.workspace_id', '=', access.workspaceId);
}

/** Forms are the workspace's: every principal that may read them sees them all. */
export function listForms(db: Kysely<DB>, access: Access, query: FormListQuery, tokens: PageTokens): Promise<Page<Form>> {
  return fetchPage(formsWithCounts(db, access), 'forms', query, tokens, pageScope(access, 'forms'), (row) => toForm(row as FormRow));
}

export async function findForm(db: Kysely<DB>, access: Access, id: string): Promise<Form | undefined> {
  const row = await formsWithCounts(db, access).where('forms.id', '=', id).executeTakeFirst();
  return row && toForm(row as FormRow);
}

export function insertForm(work: UnitOfWork, access: Access, form: Form): void {
  work.write(
    work.db.insertInto('forms').values({
      id: form.id,
      workspace_id: access.workspaceId,
      name: form.name,
      description: form.description,
      fields: JSON.stringify(form.formFields),
      allow_multiple_submissions: form.allowMultipleSubmissions ? 1 : 0,
      visibility: form.visibility,
      version: form.version,
      created_at: form.createdAt,
      updated_at: form.updatedAt,
    }),
  );
  insertVersion(work, access, form);
}

/** The form's version as it is now (its name, description and fields), kept for the responses answered on it. */
function insertVersion(work: UnitOfWork, access: Access, form: Form): void {
  work.write(
    work.db.insertInto('form_versions').values({
      form_id: form.id,
      version: form.version,
      workspace_id: access.workspaceId,
      name: form.name,
      description: form.description,
      fields: JSON.stringify(form.formFields),
      created_at: form.updatedAt,
    }),
    // Two edits of one form at once both make the same next version: one wins, the other is a 409.
    { form_versions_pk: form.id },
  );
}

/**
 * Queues an edit: only the columns that changed (two edits at once of different settings both hold), and, when
 * the name, description or fields changed (`form.version` above `previousVersion`), the new version's row.
 */
export function updateForm(work: UnitOfWork, access: Access, form: Form, previous: Form): void {
  const changed: Partial<Omit<FormsTable, 'id' | 'workspace_id' | 'created_at'>> = { updated_at: form.updatedAt };
  if (form.version !== previous.version) {
    insertVersion(work, access, form);
    Object.assign(changed, {
      name: form.name,
      description: form.description,
      fields: JSON.stringify(form.formFields),
      version: form.version,
    });
  }
  if (form.allowMultipleSubmissions !== previous.allowMultipleSubmissions)
    changed.allow_multiple_submissions = form.allowMultipleSubmissions ? 1 : 0;
  if (form.visibility !== previous.visibility) changed.visibility = form.visibility;
  work.write(work.db.updateTable('forms').set(changed).where('workspace_id', '=', access.workspaceId).where('id', '=', form.id));
}

// ---- responses ----

type ResponseRow = FormResponsesTable & {
  shown_version: number | string;
  form_name: string;
  form_description: string;
  form_fields: string;
  allow_multiple_submissions: number;
  visibility: FormsTable['visibility'];
};

function toFormResponse(row: ResponseRow): FormResponse {
  const fields = JSON.parse(row.form_fields) as FormField[];
  const answers = (row.answers === null ? {} : JSON.parse(row.answers)) as Record<string, string>;
  const response: FormResponse = {
    ...objectFields(row, 'formResponse'),
    formId: row.form_id,
    formName: row.form_name,
    formDescription: row.form_description,
    formFieldIds: fields.map((field) => field.formFieldId),
    formFields: Object.fromEntries(
      fields.map(({ formFieldId, ...field }) => [
        formFieldId,
        answers[formFieldId] === undefined ? field : { ...field, answer: answers[formFieldId] },
      ]),
    ),
    allowMultipleSubmissions: row.allow_multiple_submissions === 1,
    visibility: row.visibility,
    clientId: row.client_id,
    companyId: row.company_id,
    status: row.status,
    formVersion: Number(row.shown_version),
  };
  if (row.submitted_at !== null) response.submissionDate = row.submitted_at;
  return response;
}

/**
 * The responses an access sees: a client session, its own; a principal limited to some companies, those
 * requested in one of them; everyone else, the workspace's.
 */
function responsesOf(access: Access) {
  return (eb: ExpressionBuilder<DB, 'form_responses'>) => {
    const inWorkspace = eb('form_responses.workspace_id', '=', access.workspaceId);
    if (access.clientId) return eb.and([inWorkspace, eb('form_responses.client_id', '=', access.clientId)]);
    if (access.companyIds) return eb.and([inWorkspace, eb('form_responses.company_id', 'in', nonEmpty(access.companyIds))]);
    return inWorkspace;
  };
}

/**
 * The responses an access sees (responsesOf), each with the name, description and fields of its version of the
 * form (joins on their keys): a completed response the version it was answered on, a pending one the form's
 * newest (it answers the form as it is now). The form's settings (multiple submissions, visibility) are the form's.
 */
function visibleResponses(db: Kysely<DB>, access: Access) {
  return db
    .selectFrom('form_responses')
    .innerJoin('forms', 'forms.id', 'form_responses.form_id')
    .innerJoin('form_versions as fv', (join) =>
      join
        .onRef('fv.form_id', '=', 'form_responses.form_id')
        .on((eb) =>
          eb(
            'fv.version',
            '=',
            eb
              .case()
              .when('form_responses.status', '=', 'completed')
              .then(eb.ref('form_responses.form_version'))
              .else(eb.ref('forms.version'))
              .end(),
          ),
        ),
    )
    .selectAll('form_responses')
    .select([
      'fv.version as shown_version',
      'fv.name as form_name',
      'fv.description as form_description',
      'fv.fields as form_fields',
      'forms.allow_multiple_submissions',
      'forms.visibility',
    ])
    .where(responsesOf(access));
}

/** A page, newest first; each filter (and the form with each) has its own index. */
export function listResponses(
  db: Kysely<DB>,
  access: Access,
  query: AllFormResponsesQuery,
  tokens: PageTokens,
): Promise<Page<FormResponse>> {
  const { formId, clientId, status } = query;
  let q = visibleResponses(db, access);
  if (formId !== undefined) q = q.where('form_responses.form_id', '=', formId);
  if (clientId !== undefined) q = q.where('form_responses.client_id', '=', clientId);
  if (status !== undefined) q = q.where('form_responses.status', '=', status);
  const scope = pageScope(access, 'form_responses', { formId, clientId, status });
  return fetchPage(q, 'form_responses', query, tokens, scope, toFormResponse);
}

/** The responses to one form (GET /v1/forms/{id}/form-responses). */
export function listResponsesOf(
  db: Kysely<DB>,
  access: Access,
  formId: string,
  query: FormResponseListQuery,
  tokens: PageTokens,
): Promise<Page<FormResponse>> {
  return listResponses(db, access, { ...query, formId }, tokens);
}

export async function findResponse(db: Kysely<DB>, access: Access, id: string): Promise<FormResponse | undefined> {
  const row = await visibleResponses(db, access).where('form_responses.id', '=', id).executeTakeFirst();
  return row && toFormResponse(row);
}

/** The answers of a response, as stored: formFieldId → answer, for the fields answered. */
function answersOf(response: FormResponse): string {
  const answers: Record<string, string> = {};
  for (const [formFieldId, field] of Object.entries(response.formFields))
    if (field.answer !== undefined) answers[formFieldId] = field.answer;
  return JSON.stringify(answers);
}

/** The clients, of those asked about, that already have a response (pending or completed) to the form. */
export async function clientsWithResponse(
  db: Kysely<DB>,
  access: Access,
  formId: string,
  clientIds: readonly string[],
): Promise<Set<string>> {
  const rows = await db
    .selectFrom('form_responses')
    .select('client_id')
    .where('workspace_id', '=', access.workspaceId)
    .where('form_id', '=', formId)
    .where('client_id', 'in', nonEmpty(clientIds))
    .execute();
  return new Set(rows.map((row) => row.client_id));
}

/**
 * A new pending response, `requestedBy` the caller who requested it. A form without multiple submissions is
 * answered once per client (a unique key). `path`: the request field that named the recipients (a recipient
 * deleted meanwhile is a 400 naming it).
 */
export function insertResponse(work: UnitOfWork, access: Access, response: FormResponse, requestedBy: string, path: string): void {
  work.write(
    work.db.insertInto('form_responses').values({
      id: response.id,
      workspace_id: access.workspaceId,
      form_id: response.formId,
      client_id: response.clientId,
      company_id: response.companyId,
      status: response.status,
      answers: response.status === 'completed' ? answersOf(response) : null,
      once_key: response.allowMultipleSubmissions ? null : `${response.formId}/${response.clientId}`,
      requested_by: requestedBy,
      submitted_at: response.submissionDate ?? null,
      form_version: response.formVersion,
      created_at: response.createdAt,
      updated_at: response.updatedAt,
    }),
    {
      form_responses_once_unique: response.formId,
      form_responses_client_id_fkey: path,
      form_responses_company_id_fkey: path,
    },
  );
}

/** Stores a completed response's answers, if it is still pending and the access sees it (the caller checked, in its transaction). */
export function completeResponse(work: UnitOfWork, access: Access, response: FormResponse): void {
  work.write(
    work.db
      .updateTable('form_responses')
      .set({
        status: 'completed',
        answers: answersOf(response),
        submitted_at: response.submissionDate ?? null,
        form_version: response.formVersion,
        updated_at: response.updatedAt,
      })
      .where(responsesOf(access))
      .where('form_responses.id', '=', response.id)
      .where('form_responses.status', '=', 'pending'),
  );
}
