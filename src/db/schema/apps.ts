/**
 * Installs (apps in the portal), app connections, notifications, preferences and the e-mail outbox
 * (modules/resources/installs, notifications, email-outbox).
 */

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

export interface AppsTables {
  installs: InstallsTable;
  app_connections: AppConnectionsTable;
  app_connection_members: AppConnectionMembersTable;
  notification_preferences: NotificationPreferencesTable;
  notifications: NotificationsTable;
  email_outbox: EmailOutboxTable;
}
