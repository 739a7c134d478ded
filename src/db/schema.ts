import type { AuditActorType, AuditSource, InternalUserRole } from '../lib/caller.js';
import type { ApiKeyKind } from '../modules/api-keys/api-keys.schemas.js';
import type { ClientStatus, CreationMethod } from '../modules/clients/clients.schemas.js';
import type { CustomFieldEntity, CustomFieldType } from '../modules/custom-fields/custom-fields.schemas.js';

/**
 * Row types of every table, composed into one `DB` type for Kysely.
 * Portable column types: text ids, ISO-8601 text timestamps (sort as strings), 0/1 integer booleans,
 * JSON as text. One query then serves SQLite and PostgreSQL alike.
 */
interface ServerSecretsTable {
  name: string;
  value: string;
}

export interface WorkspacesTable {
  id: string;
  name: string;
  daily_quota: number;
  created_at: string;
  updated_at: string;
}

interface ApiKeysTable {
  id: string;
  workspace_id: string;
  kind: ApiKeyKind;
  app_id: string | null;
  /** Public, non-secret part of the key: the index used to find the row. */
  lookup: string;
  /** SHA-256 of the secret part, hex. */
  secret_hash: string;
  created_at: string;
  revoked_at: string | null;
  /** What the key is for, as its creator named it ("console": the admin console's key); null when unnamed. */
  label: string | null;
}

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

export interface AuditLogTable {
  id: string;
  workspace_id: string;
  event_type: string;
  event_description: string;
  source: AuditSource;
  actor_id: string | null;
  actor_type: AuditActorType | null;
  actor_role: string | null;
  api_key_ref: string | null;
  company_id: string | null;
  /** JSON object */
  context: string;
  /** JSON object or null */
  previous_attributes: string | null;
  ip: string | null;
  user_agent: string | null;
  created_at: string;
  updated_at: string;
  /** internal-only (never answered) */
  actor_agent_id: string | null;
  automation_id: string | null;
  is_super_admin_triggered: number;
  /** the object the entry is about: its kind, id and state after the change (JSON) */
  object_type: string | null;
  ref: string | null;
  data: string | null;
  /** the company the entry concerns: what an internal user limited to some companies reads */
  scope_company_id: string | null;
  /** 1 until the webhook dispatcher has fanned it out */
  webhook_pending: number;
}

interface AuditSessionsTable {
  workspace_id: string;
  actor_id: string;
  /** the createdAt of the actor's open session's sessionStarted */
  started_at: string;
}

export interface WebhookEndpointsTable {
  id: string;
  workspace_id: string;
  url: string;
  /** '*' (every event) or dotted event names, comma-separated */
  event_types: string;
  description: string;
  enabled: number;
  /** the signing secret, encrypted (lib/secret-box.ts) */
  secret: string;
  /** during a rotation: the previous secret (encrypted) and until when it still signs */
  previous_secret: string | null;
  previous_secret_until: string | null;
  /** since when every delivery has failed (null once one succeeds) */
  failing_since: string | null;
  disabled_reason: string | null;
  created_at: string;
  updated_at: string;
}

type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

export interface WebhookDeliveriesTable {
  id: string;
  workspace_id: string;
  endpoint_id: string;
  /** the audit entry: the webhook-id of every attempt and replay */
  event_id: string;
  event_type: string;
  /** the body sent, as sent (JSON) */
  payload: string;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: string;
  claimed_until: string | null;
  last_status: number | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

export interface WebhookAttemptsTable {
  id: string;
  delivery_id: string;
  attempt: number;
  status_code: number | null;
  duration_ms: number;
  response_excerpt: string;
  error: string | null;
  next_attempt_at: string | null;
  created_at: string;
}

interface InvoiceCountersTable {
  workspace_id: string;
  last_number: number;
}

export interface InvoicesTable {
  id: string;
  workspace_id: string;
  number: number;
  client_id: string | null;
  company_id: string;
  status: 'draft' | 'open' | 'paid' | 'void';
  /** JSON of the billing terms (modules/invoices/terms.ts): lines with their totals, memo, currency, tax, preferences */
  terms: string;
  subtotal: number;
  tax_amount: number;
  total: number;
  due_date: string;
  sent_date: string | null;
  billing_reason: 'manual' | 'subscriptionCycle';
  collection_method: 'sendInvoice' | 'chargeAutomatically';
  subscription_id: string | null;
  /** which period of its subscription it bills (0 = the first): unique per subscription */
  period_index: number | null;
  paid_at: string | null;
  voided_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface PaymentsTable {
  id: string;
  workspace_id: string;
  invoice_id: string;
  status: 'succeeded';
  amount: number;
  payment_method: string;
  created_at: string;
  updated_at: string;
}

export interface SubscriptionsTable {
  id: string;
  workspace_id: string;
  client_id: string | null;
  company_id: string;
  status: 'notStarted' | 'active' | 'cancelled' | 'ended';
  /** JSON of the billing terms, as invoices hold them */
  terms: string;
  interval: 'day' | 'week' | 'month' | 'quarterly' | 'yearly';
  interval_count: number;
  collection_method: 'sendInvoice' | 'chargeAutomatically';
  /** Unix seconds */
  schedule_start: number;
  schedule_end: number | null;
  schedule_iterations: number | null;
  periods_billed: number;
  /** when the next period starts (to bill), or null when no period is left */
  next_period_at: string | null;
  cancelled_at: string | null;
  created_at: string;
  updated_at: string;
}

interface QuotaUsageTable {
  workspace_id: string;
  /** UTC day, YYYY-MM-DD */
  day: string;
  used: number;
}

/** A console session ended by signing out, until it would have expired (modules/admin/operator-session.ts). */
interface ConsoleSessionRevocationsTable {
  /** SHA-256 of the cookie value, hex: the cookie itself is never stored. */
  session_hash: string;
  expires_at: string;
}

interface IdempotencyKeysTable {
  workspace_id: string;
  /** Whose answer this is (lib/caller.ts idempotencyScopeOf): one credential's keys never meet another's. */
  scope: string;
  key: string;
  /** SHA-256 of the method, URL and body of the first request */
  fingerprint: string;
  /** null while the first request runs */
  status_code: number | null;
  /** The answer's body sealed with a key derived from the caller's credential secret (idempotency/answer-seal.ts). */
  sealed_body: string | null;
  created_at: string;
}

export interface InstallsTable {
  id: string;
  workspace_id: string;
  type: 'core' | 'custom' | 'marketplace' | 'embed' | 'link' | 'manual';
  status: 'draft' | 'published';
  display_name: string;
  icon: string;
  /** null for embed, link and manual installs (answered as "") */
  app_id: string | null;
  app_builder_id: string | null;
  content: string | null;
  embed_code: string | null;
  embed_link: string | null;
  embed_count: number;
  /** JSON text of an oEmbed response */
  embedly_data: string | null;
  auto_size_embed: number;
  is_authenticated: number;
  is_internal_app: number;
  is_root: number;
  iu_sidebar_hidden: number;
  path: string;
  /** JSON text: array of string → string maps */
  query_params: string;
  sort: number;
  /** `sort` zero-padded: the list's keyset */
  sort_key: string;
  supports_expiring_tokens: number;
  /** JSON text: array of visibility rules */
  visibility_config: string;
  /** internal-only */
  disabled: number;
  /** internal-only, JSON text */
  notification_config: string | null;
  created_at: string;
  updated_at: string;
}

export interface AppConnectionsTable {
  id: string;
  workspace_id: string;
  install_id: string;
  type: 'embed' | 'link';
  membership_type: 'individual' | 'group' | 'company';
  /** the company of the connection (given, or that of its clients) */
  company_id: string;
  /** its clients, comma-separated in the order given ('' for none) */
  client_ids: string;
  content: string;
  auto_size_embed: number;
  created_at: string;
  updated_at: string;
}

interface AppConnectionMembersTable {
  connection_id: string;
  client_id: string;
}

interface NotificationPreferencesTable {
  workspace_id: string;
  internal_user_id: string;
  install_id: string;
  setting_id: string;
  /** 0/1; null follows the setting's default */
  email: number | null;
  product: number | null;
  updated_at: string;
}

export type SenderType = 'client' | 'internalUser' | 'company';

export interface NotificationsTable {
  id: string;
  workspace_id: string;
  /** the app that sent it ('' for none: a workspace key without an install) */
  app_id: string;
  install_id: string | null;
  setting_id: string | null;
  sender_id: string;
  sender_type: SenderType;
  sender_company_id: string | null;
  /** exactly one recipient: a client (in recipient_company_id), an internal user, or a company as a whole */
  recipient_client_id: string | null;
  recipient_internal_user_id: string | null;
  recipient_company_id: string | null;
  /** JSON of the in-product target, null when not delivered in product */
  in_product: string | null;
  /** JSON of the e-mail target, null when not delivered by e-mail */
  email: string | null;
  is_read: number;
  created_at: string;
  updated_at: string;
}

type EmailStatus = 'queued' | 'sent' | 'failed';

export interface EmailOutboxTable {
  id: string;
  workspace_id: string;
  notification_id: string | null;
  to_address: string;
  subject: string;
  text_body: string;
  /** queued until sent; failed after the last retry (kept, never deleted) */
  status: EmailStatus;
  attempts: number;
  next_attempt_at: string;
  /** a sender process holds it until then (several processes share one PostgreSQL) */
  claimed_until: string | null;
  last_error: string | null;
  created_at: string;
  sent_at: string | null;
}

interface BearerTokensTable {
  id: string;
  workspace_id: string;
  api_key_id: string;
  /** SHA-256 of the token, hex: the token itself is never stored. */
  token_hash: string;
  created_at: string;
  /** Whole second (the `tokenExpiresAt` answered); refused from this instant on. */
  expires_at: string;
}

/** An end-user session: the `tokenId` of a session token and the principal it names. */
interface SessionsTable {
  /** The tokenId. */
  id: string;
  workspace_id: string;
  /** The app key the session was minted for: only it may present the session. */
  api_key_id: string;
  /** Exactly one of internal_user_id and client_id is set; company_id only with client_id. */
  internal_user_id: string | null;
  client_id: string | null;
  company_id: string | null;
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
}

/** The billing catalog: amounts are integer cents; a template's tax percentage and lines are text, so they come back exactly as given. */
/** A recurring interval, stored normalised (quarter → quarterly, year → yearly). */
type CatalogInterval = 'day' | 'week' | 'month' | 'quarterly' | 'yearly';

export interface ProductsTable {
  id: string;
  workspace_id: string;
  name: string;
  /** lower(trim(name)): the `name` filter, exact but case-insensitive */
  name_key: string;
  description: string;
  status: 'active' | 'archived';
  /** JSON array of URLs */
  image_urls: string;
  created_at: string;
  updated_at: string;
}

export interface PricesTable {
  id: string;
  workspace_id: string;
  product_id: string;
  /** cents (bigint: PostgreSQL may answer it as a numeric string) */
  amount: number | string;
  /** lowercase ISO 4217 */
  currency: string;
  type: 'oneTime' | 'recurring';
  /** null for a one-time price */
  interval: CatalogInterval | null;
  interval_count: number | null;
  created_at: string;
  updated_at: string;
}

/** The columns both kinds of template have. */
interface TemplateColumns {
  id: string;
  workspace_id: string;
  name: string;
  memo: string;
  /** decimal text (at most 3 places), as given */
  tax_percentage: string;
  currency: string;
  /** JSON array of `{amount, description, quantity}` */
  line_items: string;
  created_at: string;
  updated_at: string;
}

export type InvoiceTemplatesTable = TemplateColumns;

export interface SubscriptionTemplatesTable extends TemplateColumns {
  interval: CatalogInterval;
  interval_count: number;
}

export interface DB {
  server_secrets: ServerSecretsTable;
  workspaces: WorkspacesTable;
  api_keys: ApiKeysTable;
  companies: CompaniesTable;
  clients: ClientsTable;
  client_companies: ClientCompaniesTable;
  internal_users: InternalUsersTable;
  custom_fields: CustomFieldsTable;
  custom_field_options: CustomFieldOptionsTable;
  audit_log: AuditLogTable;
  audit_sessions: AuditSessionsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  invoice_counters: InvoiceCountersTable;
  invoices: InvoicesTable;
  payments: PaymentsTable;
  subscriptions: SubscriptionsTable;
  products: ProductsTable;
  prices: PricesTable;
  invoice_templates: InvoiceTemplatesTable;
  subscription_templates: SubscriptionTemplatesTable;
  quota_usage: QuotaUsageTable;
  idempotency_keys: IdempotencyKeysTable;
  console_session_revocations: ConsoleSessionRevocationsTable;
  installs: InstallsTable;
  app_connections: AppConnectionsTable;
  app_connection_members: AppConnectionMembersTable;
  notification_preferences: NotificationPreferencesTable;
  notifications: NotificationsTable;
  email_outbox: EmailOutboxTable;
  bearer_tokens: BearerTokensTable;
  sessions: SessionsTable;
}
