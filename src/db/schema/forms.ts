/** Forms and their responses (modules/resources/forms). */

export const FORM_FIELD_TYPES = ['shortAnswer', 'longAnswer', 'email', 'url', 'number', 'date'] as const;

/** allClients: shown to every client; requestedClients: only to those it was requested of. */
export const FORM_VISIBILITIES = ['requestedClients', 'allClients'] as const;
type FormVisibility = (typeof FORM_VISIBILITIES)[number];

export const FORM_RESPONSE_STATUSES = ['pending', 'completed'] as const;
type FormResponseStatus = (typeof FORM_RESPONSE_STATUSES)[number];

export interface FormsTable {
  id: string;
  workspace_id: string;
  name: string;
  description: string;
  /** JSON text: array of `{formFieldId, title, description, type, isRequired}`, in the form's order */
  fields: string;
  allow_multiple_submissions: number;
  visibility: FormVisibility;
  /** The newest version's number (name, description and fields above are that version's); 1 for a form never edited. */
  version: number;
  created_at: string;
  updated_at: string;
}

/** Every version of a form, whole: what a response answered on an older one is read with. */
interface FormVersionsTable {
  form_id: string;
  /** 1, 2, …: one per edit of the name, description or fields. */
  version: number;
  workspace_id: string;
  name: string;
  description: string;
  /** JSON text, as FormsTable.fields */
  fields: string;
  created_at: string;
}

export interface FormResponsesTable {
  id: string;
  workspace_id: string;
  form_id: string;
  /** The client it was requested of, in one of its companies: it goes with either. */
  client_id: string;
  company_id: string;
  status: FormResponseStatus;
  /** JSON text: formFieldId → answer (fields answered only); null while pending */
  answers: string | null;
  /** `form_id/client_id` when the form does not allow multiple submissions (unique in the workspace), else null */
  once_key: string | null;
  /** The internal user or client who requested it, or the API key's id. */
  requested_by: string;
  submitted_at: string | null;
  /** The form's version it was answered on; while pending, the version it was requested on (it answers the newest). */
  form_version: number;
  created_at: string;
  updated_at: string;
}

export interface FormsTables {
  forms: FormsTable;
  form_versions: FormVersionsTable;
  form_responses: FormResponsesTable;
}
