import { type ApiError, errors } from '../lib/errors.js';
import { isForeignKeyViolation, isUniqueViolation } from './errors.js';

/**
 * Every constraint a write can violate on purpose, how each driver names it, and the API error it
 * means. A repository that writes a guarded row names the constraint and its subject (the value
 * the error message quotes); the unit of work turns a violation into this error.
 */
const CONSTRAINTS = {
  // An identity at an OpenID provider links one person, and a person has one per provider.
  sign_in_identities_subject: {
    sqlite: 'sign_in_identities.workspace_id, sign_in_identities.provider, sign_in_identities.subject',
    error: (provider: string) => errors.conflict(`This ${provider} identity is already linked to someone in this workspace.`),
  },
  sign_in_identities_client: {
    sqlite: 'sign_in_identities.client_id, sign_in_identities.provider',
    error: (provider: string) => errors.conflict(`You already have a ${provider} identity linked: unlink it first.`),
  },
  sign_in_identities_internal_user: {
    sqlite: 'sign_in_identities.internal_user_id, sign_in_identities.provider',
    error: (provider: string) => errors.conflict(`You already have a ${provider} identity linked: unlink it first.`),
  },
  clients_email_unique: {
    sqlite: 'clients.workspace_id, clients.email_key',
    error: (email: string) => errors.conflict(`A client with email "${email}" already exists in this workspace.`),
  },
  companies_name_unique: {
    sqlite: 'companies.workspace_id, companies.name_key',
    error: (name: string) => errors.conflict(`A company named "${name}" already exists.`),
  },
  internal_users_email_unique: {
    sqlite: 'internal_users.workspace_id, internal_users.email_key',
    error: (email: string) => errors.conflict(`An internal user with email ${email} already exists in this workspace.`),
  },
  custom_fields_key_unique: {
    sqlite: 'custom_fields.workspace_id, custom_fields.entity_type, custom_fields.key',
    error: (field: string) => errors.conflict(`A ${field} already exists.`),
  },
  files_channel_path: {
    sqlite: 'files.channel_id, files.path',
    error: (path: string) => errors.conflict(`A file, folder or link already exists at "${path}" in this channel.`),
  },
  // A client's company deleted between the check and the write (SQLite names no foreign key).
  clients_company_id_fkey: {
    sqlite: undefined,
    error: (path: string) => errors.invalidField(path, 'is not a company of this workspace'),
  },
  client_companies_company_id_fkey: {
    sqlite: undefined,
    error: (path: string) => errors.invalidField(path, 'is not a company of this workspace'),
  },
  // A form without multiple submissions requested of a client twice at once: one request wins.
  form_responses_once_unique: {
    sqlite: 'form_responses.workspace_id, form_responses.once_key',
    error: (formId: string) =>
      errors.conflict(`Form ${formId} does not allow multiple submissions, and was already requested of this client.`),
  },
  // Two edits of one form at once make the same next version: one wins.
  form_versions_pk: {
    sqlite: 'form_versions.form_id, form_versions.version',
    error: (formId: string) => errors.conflict(`Form ${formId} was edited by someone else meanwhile: read it again and retry.`),
  },
  // A message sent while its channel is being deleted (SQLite names no foreign key).
  messages_channel_id_fkey: {
    sqlite: undefined,
    error: (path: string) => errors.invalidField(path, 'is not a message channel of this workspace'),
  },
  // A recipient deleted between the check and the write (SQLite names no foreign key).
  form_responses_client_id_fkey: {
    sqlite: undefined,
    error: (path: string) => errors.invalidField(path, 'names a client or company deleted meanwhile'),
  },
  form_responses_company_id_fkey: {
    sqlite: undefined,
    error: (path: string) => errors.invalidField(path, 'names a client or company deleted meanwhile'),
  },
  contracts_client_id_fkey: {
    sqlite: undefined,
    error: (path: string) => errors.invalidField(path, 'names a client or company deleted meanwhile'),
  },
  contracts_company_id_fkey: {
    sqlite: undefined,
    error: (path: string) => errors.invalidField(path, 'names a client or company deleted meanwhile'),
  },
  // An app declaring the same resource twice at once (PUT /v1/app-api-resources/{name}): one request wins.
  app_api_resources_name_unique: {
    sqlite: 'app_api_resources.workspace_id, app_api_resources.app_id, app_api_resources.name',
    error: (name: string) => errors.conflict(`The resource "${name}" was declared meanwhile: send the request again to update it.`),
  },
  // The same person marked as a QA principal twice at once: one request wins.
  qa_principals_pkey: {
    sqlite: 'qa_principals.id',
    error: (email: string) => errors.conflict(`${email} is already a QA principal.`),
  },
} satisfies Record<string, { sqlite: string | undefined; error: (subject: string) => ApiError }>;

type ConstraintName = keyof typeof CONSTRAINTS;

/** What a write declares it may violate: constraint → the subject its error names. */
export type ConstraintGuards = Partial<Record<ConstraintName, string>>;

function violated(error: unknown, guards: ConstraintGuards): ConstraintName | undefined {
  const declared = Object.keys(guards) as ConstraintName[];
  const pgName = (error as { constraint?: unknown }).constraint;
  if (typeof pgName === 'string') return declared.find((name) => name === pgName);
  if (isForeignKeyViolation(error)) return declared.find((name) => CONSTRAINTS[name].sqlite === undefined);
  const message = String((error as { message?: unknown }).message ?? '');
  return declared.find((name) => CONSTRAINTS[name].sqlite !== undefined && message.endsWith(`: ${CONSTRAINTS[name].sqlite}`));
}

/** The API error a violation of a declared constraint means, or undefined (not a violation, or not declared). */
export function constraintError(error: unknown, guards: ConstraintGuards): ApiError | undefined {
  if (!isUniqueViolation(error) && !isForeignKeyViolation(error)) return undefined;
  const name = violated(error, guards);
  return name === undefined ? undefined : CONSTRAINTS[name].error(guards[name] as string);
}
