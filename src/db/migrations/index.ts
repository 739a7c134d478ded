import { foundation } from './2026-11-22-01-foundation.js';
import { directory } from './2026-11-22-02-directory.js';
import { limits } from './2026-11-22-03-limits.js';
import { identity } from './2026-11-22-04-identity.js';
import { pagingIndexes } from './2026-11-22-05-paging-indexes.js';
import { idempotency } from './2026-11-23-01-idempotency.js';
import { installs } from './2026-11-23-02-installs.js';
import { appConnections } from './2026-11-23-03-app-connections.js';
import { notificationPreferences } from './2026-11-23-04-notification-preferences.js';
import { notifications } from './2026-11-23-05-notifications.js';
import { auditLog } from './2026-11-23-06-audit-log.js';
import { webhooks } from './2026-11-23-07-webhooks.js';
import { catalog } from './2026-11-23-08-catalog.js';
import { billing } from './2026-11-23-09-billing.js';
import { apiKeyLabels } from './2026-11-23-10-api-key-labels.js';
import { idempotencyScope } from './2026-11-25-01-idempotency-scope.js';
import { consoleSessionRevocations } from './2026-11-25-02-console-session-revocations.js';
import { serverSettings } from './2026-11-26-01-server-settings.js';
import { webhookCatchUp } from './2026-11-25-03-webhook-catch-up.js';
import { messages } from './2026-11-25-10-messages.js';
import { tasks } from './2026-11-25-12-tasks.js';
import { notes } from './2026-11-25-13-notes.js';
import { files } from './2026-11-25-16-files.js';
import { invoiceDrafts } from './2026-11-25-17-invoice-drafts.js';
import { forms } from './2026-11-25-18-forms.js';
import { contracts } from './2026-11-25-19-contracts.js';
import { signIn } from './2026-11-27-01-sign-in.js';
import { paymentsAndClocks } from './2026-11-28-01-payments-and-clocks.js';
import { documents } from './2026-11-28-02-documents.js';
import { formVersions } from './2026-11-28-04-form-versions.js';
import { qaAndAppResources } from './2026-11-28-05-qa-and-app-resources.js';
import { pendingRefunds } from './2026-11-28-06-pending-refunds.js';
import { appSessionsOfSignIns } from './2026-11-28-20-app-sessions-of-sign-ins.js';
import { messageSequence } from './2026-11-28-30-message-sequence.js';
import { profiles } from './2026-11-29-41-profiles.js';
import { workspaceLogos } from './2026-11-29-42-workspace-logos.js';
import { searchAndInbox } from './2026-11-29-44-search-and-inbox.js';
import type { MigrationFactory } from './migration.js';

/** Every migration, in order. Never edit one that has landed: add a new file. */
export const MIGRATIONS: Record<string, MigrationFactory> = {
  '2026-11-22-01-foundation': foundation,
  '2026-11-22-02-directory': directory,
  '2026-11-22-03-limits': limits,
  '2026-11-22-04-identity': identity,
  '2026-11-22-05-paging-indexes': pagingIndexes,
  '2026-11-23-01-idempotency': idempotency,
  '2026-11-23-02-installs': installs,
  '2026-11-23-03-app-connections': appConnections,
  '2026-11-23-04-notification-preferences': notificationPreferences,
  '2026-11-23-05-notifications': notifications,
  '2026-11-23-06-audit-log': auditLog,
  '2026-11-23-07-webhooks': webhooks,
  '2026-11-23-08-catalog': catalog,
  '2026-11-23-09-billing': billing,
  '2026-11-23-10-api-key-labels': apiKeyLabels,
  '2026-11-25-01-idempotency-scope': idempotencyScope,
  '2026-11-25-02-console-session-revocations': consoleSessionRevocations,
  '2026-11-25-03-webhook-catch-up': webhookCatchUp,
  '2026-11-25-10-messages': messages,
  '2026-11-25-12-tasks': tasks,
  '2026-11-25-13-notes': notes,
  '2026-11-25-16-files': files,
  '2026-11-25-17-invoice-drafts': invoiceDrafts,
  '2026-11-25-18-forms': forms,
  '2026-11-25-19-contracts': contracts,
  '2026-11-26-01-server-settings': serverSettings,
  '2026-11-27-01-sign-in': signIn,
  '2026-11-28-01-payments-and-clocks': paymentsAndClocks,
  '2026-11-28-02-documents': documents,
  '2026-11-28-04-form-versions': formVersions,
  '2026-11-28-05-qa-and-app-resources': qaAndAppResources,
  '2026-11-28-06-pending-refunds': pendingRefunds,
  '2026-11-28-20-app-sessions-of-sign-ins': appSessionsOfSignIns,
  '2026-11-28-30-message-sequence': messageSequence,
  '2026-11-29-41-profiles': profiles,
  '2026-11-29-42-workspace-logos': workspaceLogos,
  '2026-11-29-44-search-and-inbox': searchAndInbox,
};
