// src/shared/: data both the server and the admin console (web/console) import. Nothing here imports a
// file outside src/shared/ (scripts/module-graph.mjs checks it), so the console bundles no server code.

/**
 * Every audit event type of the specification (Events), and this service's own sessionTokenMinted (issue 42: a
 * session token minted for someone not a QA principal, which the specification has no event for), in one place:
 * the writer takes only these, the list filter validates against them, the OpenAPI document shows them as an
 * enum, the console offers them as filters, and each has the dotted name its webhook carries.
 */
export const AUDIT_EVENT_TYPES = [
  // Authentication
  'userLoggedIn',
  'userLoggedOut',
  'userLoginSucceeded',
  'userLoginFailed',
  'passwordReset',
  'passwordChanged',
  'googleDelinked',
  'magicLinkSent',
  'workspaceMfaEnabled',
  'workspaceMfaDisabled',
  // Clients and companies
  'clientCreated',
  'clientActivated',
  'clientUpdated',
  'clientDeleted',
  'clientInvited',
  'companyCreated',
  'companyUpdated',
  'companyCustomFieldsUpdated',
  'companyDeleted',
  'clientCustomFieldsUpdated',
  // Files
  'fileCreated',
  'fileUpdated',
  'fileDeleted',
  'folderCreated',
  'folderUpdated',
  'folderDeleted',
  'linkCreated',
  'linkUpdated',
  'linkDeleted',
  'fileDownloaded',
  'fileBatchDownloaded',
  'fileBatchDeleted',
  // Billing
  'invoiceCreated',
  'invoiceInitiated',
  'invoicePaid',
  'invoiceUpdated',
  'invoiceDeleted',
  'invoiceVoided',
  'invoiceDownloaded',
  'refundRequested',
  'refundSucceeded',
  'refundFailed',
  'paymentSucceeded',
  'paymentFailed',
  'subscriptionCreated',
  'subscriptionCancelled',
  'priceCreated',
  'productCreated',
  'productUpdated',
  // Messages
  'messageSent',
  'messageChannelCreated',
  'messageChannelDeleted',
  // Tasks
  'taskCreated',
  'taskUpdated',
  'taskDeleted',
  'taskArchived',
  'taskCompleted',
  // Contracts
  'contractRequested',
  'contractCompleted',
  'contractDownloaded',
  // Notes
  'noteCreated',
  'noteUpdated',
  'noteDeleted',
  // Internal users and keys
  'internalUserCreated',
  'internalUserDeleted',
  'internalUserAccessLevelChanged',
  'internalUserClientVisibilitySet',
  'apiKeyCreated',
  'apiKeyDeleted',
  // Forms
  'formCreated',
  'formEdited',
  'formAssigned',
  'formResponseCompleted',
  // Sessions and custom
  'customEvent',
  'sessionStarted',
  'sessionEnded',
  // Not of the specification (issue 42, point 7): an end-user session token minted (the operator's, the portal's)
  'sessionTokenMinted',
  // Apps
  'appApiResourceRegistered',
  'appApiResourceUpdated',
  'appApiResourceDeleted',
  'appBuilderSecretUpdated',
  'appEventEmitted',
  // QA
  'qaAgentBearerMinted',
  'qaImpersonationTokenMinted',
  'qaPrincipalCreated',
  'qaPrincipalDeleted',
] as const;

export type AuditEventType = (typeof AUDIT_EVENT_TYPES)[number];

/** The objects event names start with, longest first (so `messageChannel…` is not read as `message…`). */
const OBJECTS = [
  'internalUser',
  'messageChannel',
  'appApiResource',
  'appBuilderSecret',
  'workspaceMfa',
  'magicLink',
  'subscription',
  'qaImpersonationToken',
  'qaAgentBearer',
  'qaPrincipal',
  'password',
  'contract',
  'company',
  'invoice',
  'payment',
  'product',
  'session',
  'message',
  'client',
  'google',
  'folder',
  'refund',
  'apiKey',
  'custom',
  'price',
  'file',
  'link',
  'task',
  'note',
  'form',
  'user',
  'app',
].sort((a, b) => b.length - a.length);

/**
 * The webhook name of an event type: its object, a dot, the rest in lower camel case
 * (`clientCreated` → `client.created`, `companyCustomFieldsUpdated` → `company.customFieldsUpdated`,
 * `customEvent` → `custom.event`), the shape receivers of the hosted API parse.
 */
export function webhookEventName(type: AuditEventType): string {
  const object = OBJECTS.find((o) => type.startsWith(o) && /[A-Z]/.test(type[o.length] ?? ''));
  if (!object) return type;
  const rest = type.slice(object.length);
  return `${object}.${rest[0].toLowerCase()}${rest.slice(1)}`;
}

/** Every webhook name, for endpoints' subscriptions. */
export const WEBHOOK_EVENT_NAMES: readonly string[] = AUDIT_EVENT_TYPES.map(webhookEventName);
