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
export type Company = Item<'/v1/companies'>;
export type Install = Item<'/v1/installs'>;
export type NotificationSettings = Answer<'/v1/installs/{installId}/notification-settings'>;
export type AuditEntry = Item<'/v1/audit-logs'>;
export type WebhookEndpoint = Item<'/admin/workspaces/{workspaceId}/webhooks'>;
export type WebhookDelivery = Item<'/admin/workspaces/{workspaceId}/webhook-deliveries'>;
export type Invoice = Item<'/v1/invoices'>;
export type Subscription = Item<'/v1/subscriptions'>;
export type ImportResult = Answer<'/admin/workspaces/{workspaceId}/imports/clients', 'post'>;
export type MessageChannel = Item<'/v1/message-channels'>;
export type Task = Item<'/v1/tasks'>;
export type Note = Item<'/v1/notes'>;
export type FileChannel = Item<'/v1/channels/files'>;
export type FileObject = Item<'/v1/files'>;
export type Form = Item<'/v1/forms'>;
export type FormResponse = Item<'/v1/form-responses'>;
export type ContractTemplate = Item<'/v1/contract-templates'>;
export type Contract = Item<'/v1/contracts'>;
export type QaPrincipal = Item<'/admin/workspaces/{workspaceId}/qa/principals'>;
