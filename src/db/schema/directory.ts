/**
 * Companies, clients (and their companies), internal users and custom fields (modules/resources/directory,
 * internal-users, custom-fields).
 */
import type { InternalUserRole } from '../../lib/caller.js';

export const CLIENT_STATUSES = ['unknown', 'deleted', 'active', 'notInvited', 'invited'] as const;
type ClientStatus = (typeof CLIENT_STATUSES)[number];
export const CREATION_METHODS = ['client', 'directSignUp', 'import', 'internalUser'] as const;
export type CreationMethod = (typeof CREATION_METHODS)[number];
export const CUSTOM_FIELD_TYPES = ['text', 'number', 'email', 'url', 'phoneNumber', 'multiSelect', 'address'] as const;
export type CustomFieldType = (typeof CUSTOM_FIELD_TYPES)[number];
export const CUSTOM_FIELD_ENTITIES = ['client', 'company'] as const;
export type CustomFieldEntity = (typeof CUSTOM_FIELD_ENTITIES)[number];

export interface CompaniesTable {
  id: string;
  workspace_id: string;
  name: string;
  /** lower(trim(name)) for real companies, null for placeholders (unique per workspace). */
  name_key: string | null;
  fallback_color: string;
  icon_image_url: string | null;
  is_placeholder: number;
  /** JSON object */
  custom_fields: string;
  created_at: string;
  updated_at: string;
}

/** The columns of a person of a workspace: a client or an internal user. */
export interface PersonColumns {
  id: string;
  workspace_id: string;
  email: string;
  /** lower(email): unique per workspace */
  email_key: string;
  given_name: string;
  family_name: string;
  avatar_image_url: string | null;
  /** 1: notifications' e-mails go to the person (the default); 0: it turned them off (its in-product notifications stay) */
  email_notifications: number;
  created_at: string;
  updated_at: string;
}

export interface ClientsTable extends PersonColumns {
  /** primary company */
  company_id: string;
  /** every company of the client, primary first, comma-separated */
  company_ids: string;
  status: ClientStatus;
  creation_method: CreationMethod;
  first_login_date: string | null;
  last_login_date: string | null;
  invited_by: string | null;
  invite_token_hash: string | null;
  /** When the invite link stops working (sent again: a new link and a new expiry). */
  invite_expires_at: string | null;
  /** JSON object */
  custom_fields: string;
}

interface ClientCompaniesTable {
  workspace_id: string;
  client_id: string;
  company_id: string;
  /** the client's created_at: the clients of one company are paged from this table's index */
  client_created_at: string;
}

/** A client's search terms (lib/search-terms.ts): one row per term, a prefix query a range of the primary key. */
interface ClientSearchTermsTable {
  workspace_id: string;
  term: string;
  client_id: string;
}

/** A company's search terms, as a client's. */
interface CompanySearchTermsTable {
  workspace_id: string;
  term: string;
  company_id: string;
}

export interface InternalUsersTable extends PersonColumns {
  role: InternalUserRole;
  is_client_access_limited: number;
  /** comma-separated company ids; empty when not limited */
  company_access_list: string;
}

export interface CustomFieldsTable {
  id: string;
  workspace_id: string;
  entity_type: CustomFieldEntity;
  key: string;
  name: string;
  type: CustomFieldType;
  created_at: string;
  updated_at: string;
}

interface CustomFieldOptionsTable {
  id: string;
  workspace_id: string;
  custom_field_id: string;
  key: string;
  label: string;
  created_at: string;
}

export interface DirectoryTables {
  companies: CompaniesTable;
  clients: ClientsTable;
  client_companies: ClientCompaniesTable;
  client_search_terms: ClientSearchTermsTable;
  company_search_terms: CompanySearchTermsTable;
  internal_users: InternalUsersTable;
  custom_fields: CustomFieldsTable;
  custom_field_options: CustomFieldOptionsTable;
}
