import type { ExpressionBuilder, Kysely } from 'kysely';
import { type Page, type PageTokens, fetchPage, pageScope } from '../../db/paging.js';
import { nonEmpty, objectFields } from '../../db/rows.js';
import type { DB, FormResponsesTable, FormsTable } from '../../db/schema.js';
import type { UnitOfWork } from '../../db/unit-of-work.js';
import type { Access } from '../../lib/caller.js';
import type { AllFormResponsesQuery, Form, FormField, FormListQuery, FormResponse, FormResponseListQuery } from './forms.schemas.js';

/** Forms' storage: fields and answers as JSON text, 0/1 booleans; the counts read with the form. */

type FormRow = FormsTable & { requests: number | string; submissions: number | string; latest_submission_at: string | null };

export function toForm(row: FormRow): Form {
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

export function insertForm(work: UnitOfWork, row: FormsTable): void {
  work.write(work.db.insertInto('forms').values(row));
}

// ---- responses ----

type ResponseRow = FormResponsesTable & {
  form_name: string;
  form_description: string;
  form_fields: string;
  allow_multiple_submissions: number;
  visibility: FormsTable['visibility'];
};

export function toFormResponse(row: ResponseRow): FormResponse {
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
  };
  if (row.submitted_at !== null) response.submissionDate = row.submitted_at;
  return response;
}

/**
 * The responses an access sees: a client session, its own; a principal limited to some companies, those
 * requested in one of them; everyone else, the workspace's. With the form's fields (a join on its key).
 */
function visibleResponses(db: Kysely<DB>, access: Access) {
  let q = db
    .selectFrom('form_responses')
    .innerJoin('forms', 'forms.id', 'form_responses.form_id')
    .selectAll('form_responses')
    .select([
      'forms.name as form_name',
      'forms.description as form_description',
      'forms.fields as form_fields',
      'forms.allow_multiple_submissions',
      'forms.visibility',
    ])
    .where('form_responses.workspace_id', '=', access.workspaceId);
  if (access.clientId) q = q.where('form_responses.client_id', '=', access.clientId);
  else if (access.companyIds) q = q.where('form_responses.company_id', 'in', nonEmpty(access.companyIds));
  return q;
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

export function findResponseRow(db: Kysely<DB>, access: Access, id: string): Promise<ResponseRow | undefined> {
  return visibleResponses(db, access).where('form_responses.id', '=', id).executeTakeFirst();
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

/** `path`: the request field that named the recipients (a recipient deleted meanwhile is a 400 naming it). */
export function insertResponse(work: UnitOfWork, row: FormResponsesTable, path: string): void {
  work.write(work.db.insertInto('form_responses').values(row), {
    form_responses_once_unique: row.form_id,
    form_responses_client_id_fkey: path,
    form_responses_company_id_fkey: path,
  });
}

/** Completes a pending response (a completed one is left as it is: the caller checked, in its transaction). */
export function completeResponse(work: UnitOfWork, access: Access, id: string, answers: string, at: string): void {
  work.write(
    work.db
      .updateTable('form_responses')
      .set({ status: 'completed', answers, submitted_at: at, updated_at: at })
      .where('workspace_id', '=', access.workspaceId)
      .where('id', '=', id)
      .where('status', '=', 'pending'),
  );
}
