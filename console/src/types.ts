/** The shapes the console reads (the fields it uses), as the OpenAPI document at /openapi.json gives them. */

export interface Workspace {
  id: string;
  name: string;
  dailyQuota: number;
  usedToday: number;
  createdAt: string;
}

export interface CreatedKey {
  apiKeyId: string;
  apiKey: string;
  appId?: string;
}

export interface ApiKey {
  id: string;
  kind: 'workspace' | 'app';
  appId: string | null;
  label: string | null;
  createdAt: string;
  revokedAt: string | null;
}

export interface InternalUser {
  id: string;
  email: string;
  givenName: string;
  familyName: string;
  role: 'admin' | 'staff';
  isClientAccessLimited: boolean;
  companyAccessList: string[];
  createdAt: string;
}

export interface Client {
  id: string;
  email: string;
  givenName: string;
  familyName: string;
  companyId: string;
  companyIds: string[];
  status: string;
  createdAt: string;
  inviteUrl?: string;
}

export interface Company {
  id: string;
  name: string;
  isPlaceholder: boolean;
  createdAt: string;
}

export interface Install {
  id: string;
  type: string;
  status: 'draft' | 'published';
  displayName: string;
  appId: string;
  isDraft: boolean;
  sort: number;
}

export interface NotificationSettings {
  actionLabel?: { verb: string; singularNoun: string; pluralNoun: string };
  notifications: { id: string; label: string; surfaces: string[]; default: { email: boolean; product: boolean } }[];
}

export interface AuditEntry {
  id: string;
  createdAt: string;
  eventType: string;
  eventDescription: string;
  source: string;
  actorId: string | null;
  actorType: string | null;
  companyId: string | null;
  ref: string;
  data: string;
}

export interface WebhookEndpoint {
  id: string;
  url: string;
  eventTypes: string[];
  description?: string;
  enabled: boolean;
  disabledReason: string | null;
  failingSince: string | null;
  createdAt: string;
  secret?: string;
}

interface DeliveryAttempt {
  attempt: number;
  statusCode: number | null;
  durationMs: number;
  responseExcerpt: string;
  error: string | null;
  nextAttemptAt: string | null;
  createdAt: string;
}

export interface WebhookDelivery {
  id: string;
  endpointId: string;
  webhookId: string;
  eventType: string;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: number;
  nextAttemptAt: string | null;
  lastStatus: number | null;
  lastError: string | null;
  log: DeliveryAttempt[];
  createdAt: string;
}

export interface Invoice {
  id: string;
  /** absent on a draft: it takes one when finalised */
  number?: string;
  status: 'draft' | 'open' | 'paid' | 'void';
  clientId: string | null;
  companyId: string;
  currency: string;
  total: number;
  dueDate: string;
  createdAt: string;
}

export interface Subscription {
  id: string;
  status: 'notStarted' | 'active' | 'cancelled' | 'ended';
  clientId: string | null;
  companyId: string;
  currency: string;
  interval: string;
  intervalCount: number;
  lineItems: { total: number }[];
  nextBillingDate: string | null;
  createdAt: string;
}

export interface ImportResult {
  created: number;
  skipped: number;
  errors: { line: number; message: string }[];
  truncatedErrors?: true;
}

export interface MessageChannel {
  id: string;
  membershipType: 'individual' | 'group' | 'company';
  clientId?: string;
  companyId: string;
  memberIds?: string[];
  lastMessageDate?: string;
  createdAt: string;
}

export interface Message {
  id: string;
  channelId: string;
  senderId: string;
  text: string;
  createdAt: string;
}

export interface Task {
  id: string;
  name: string;
  status: 'todo' | 'inProgress' | 'completed';
  parentTaskId?: string;
  internalUserId?: string;
  clientId?: string;
  companyId?: string;
  dueDate?: string;
  isArchived: boolean;
  completedDate?: string;
  createdDate: string;
}

export interface TaskTemplate {
  id: string;
  name: string;
  description: string;
  subTaskTemplates: { id: string; name: string }[];
  createdDate: string;
}

export interface Note {
  id: string;
  entityType: 'client' | 'company';
  entityId: string;
  title: string;
  creatorId: string;
  createdAt: string;
  updatedAt: string;
}

export interface FileChannel {
  id: string;
  membershipType: 'individual' | 'group' | 'company';
  clientId?: string;
  companyId: string;
  memberIds?: string[];
  createdAt: string;
  updatedAt: string;
}

export interface FileObject {
  id: string;
  object: 'file' | 'folder' | 'link';
  channelId: string;
  name: string;
  path: string;
  linkUrl?: string;
  size?: number;
  status?: 'pending' | 'completed';
  contentType?: string;
  creatorId?: string;
  clientPermissions?: 'read-write' | 'read-only';
  createdAt: string;
  updatedAt: string;
}

export interface Form {
  id: string;
  name: string;
  description: string;
  formFieldIds: string[];
  allowMultipleSubmissions: boolean;
  visibility: 'requestedClients' | 'allClients';
  formResponseRequests: number;
  formResponseSubmissions: number;
  latestSubmissionDate?: string;
  createdAt: string;
}

export interface FormResponse {
  id: string;
  formId: string;
  formName: string;
  clientId: string;
  companyId: string;
  status: 'pending' | 'completed';
  submissionDate?: string;
  createdAt: string;
}

export interface ContractTemplate {
  id: string;
  name: string;
  fields: { id: string }[];
  requestsCount: number;
  submissionsCount: number;
  latestSubmissionDate?: string;
  createdAt: string;
}

export interface Contract {
  id: string;
  contractTemplateId: string;
  name: string;
  clientId: string;
  companyId: string;
  status: 'pending' | 'signed';
  shareDate: string;
  submissionDate?: string;
  createdAt: string;
}

/** An e-mail of the outbox (GET /admin/workspaces/{id}/outbox); `text` only while the server has no SMTP_URL. */
export interface OutboxEmail {
  id: string;
  notificationId: string | null;
  to: string;
  subject: string;
  status: 'queued' | 'sent' | 'failed';
  attempts: number;
  nextAttemptAt: string | null;
  lastError: string | null;
  createdAt: string;
  sentAt: string | null;
  text?: string;
}
