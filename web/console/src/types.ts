/**
 * The shapes the console reads, as the OpenAPI document at /openapi.json gives them: aliases of the types
 * `npm run gen:web-types` generates from it (web/kit/api-types.ts), so a change of the API's schemas shows in
 * the console's type check.
 */
import type { Answer, Item } from '../../kit/api.js';

export type Workspace = Item<'/admin/workspaces'>;
export type CreatedKey = Answer<'/admin/workspaces/{workspaceId}/keys', 'post'>;
export type ApiKey = Item<'/admin/workspaces/{workspaceId}/keys'>;
export type InternalUser = Item<'/v1/internal-users'>;
export type Client = Item<'/v1/clients'>;
export type Install = Item<'/v1/installs'>;
export type NotificationSettings = Answer<'/v1/installs/{installId}/notification-settings'>;
export type AuditEntry = Item<'/v1/audit-logs'>;
export type WebhookEndpoint = Item<'/admin/workspaces/{workspaceId}/webhooks'>;
export type WebhookDelivery = Item<'/admin/workspaces/{workspaceId}/webhook-deliveries'>;
export type ImportResult = Answer<'/admin/workspaces/{workspaceId}/imports/clients', 'post'>;
export type QaPrincipal = Item<'/admin/workspaces/{workspaceId}/qa/principals'>;
