import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CompiledQuery, type Kysely, type KyselyPlugin, type RootOperationNode, sql } from 'kysely';
import type { PageTokens } from '../src/db/paging.js';
import type { DB } from '../src/db/schema.js';
import type { Access } from '../src/lib/caller.js';
import { listEntries } from '../src/modules/resources/audit-log/audit-log.repository.js';
import {
  listInvoiceTemplates,
  listPrices,
  listProducts,
  listSubscriptionTemplates,
} from '../src/modules/resources/billing/catalog.repository.js';
import { listClients } from '../src/modules/resources/directory/clients.repository.js';
import { listCompanies } from '../src/modules/resources/directory/companies.repository.js';
import { listCustomFields, listOptions } from '../src/modules/resources/custom-fields/custom-fields.repository.js';
import { listConnections } from '../src/modules/resources/installs/connections.repository.js';
import { listInstalls } from '../src/modules/resources/installs/installs.repository.js';
import { listOutbox } from '../src/modules/resources/email-outbox/email-outbox.repository.js';
import { listInvoices, listPayments } from '../src/modules/resources/billing/invoices.repository.js';
import { listSubscriptions } from '../src/modules/resources/billing/subscriptions.repository.js';
import { listInternalUsers } from '../src/modules/resources/internal-users/internal-users.repository.js';
import { type ChannelFilters, listChannels as listChannelsOf } from '../src/modules/components/channels/channels.repository.js';
import { listMessages } from '../src/modules/resources/messages/messages.repository.js';
import { listFiles } from '../src/modules/resources/files/files.repository.js';
import { listNotifications } from '../src/modules/resources/notifications/notifications.repository.js';
import { listTasks, listTemplates as listTaskTemplates } from '../src/modules/resources/tasks/tasks.repository.js';
import { listNotes } from '../src/modules/resources/notes/notes.repository.js';
import { listForms, listResponses } from '../src/modules/resources/forms/forms.repository.js';
import { listContracts, listTemplates as listContractTemplates } from '../src/modules/resources/contracts/contracts.repository.js';
import { BACKENDS, type Backend, harness } from './helpers/harness.js';

/**
 * Rule (issue 9): every list, filtered or not, reads a page as a range of an index that also gives its
 * order, on both dialects, before and after a cursor; so a page deep in a list costs what the first
 * costs. The SQL checked is what the repositories run (captured by a Kysely plugin), explained by the
 * database itself: SQLite's EXPLAIN QUERY PLAN, PostgreSQL's EXPLAIN (sequential scans and sorts priced
 * out, so a tiny table shows the plan a large one gets).
 */

type Lister = (db: Kysely<DB>, access: Access, tokens: PageTokens, nextToken: string | undefined) => Promise<unknown>;

const FIELD_ID = '00000000-0000-4000-8000-000000000001';

/** Message and file channels: one query of the channels component, over each kind's table. */
type ChannelLister = (db: Kysely<DB>, a: Access, f: ChannelFilters, p: { nextToken?: string }, t: PageTokens) => Promise<unknown>;
const listChannels: ChannelLister = (db, a, f, p, t) => listChannelsOf(db, a, 'message', f, p, t);
const listFileChannels: ChannelLister = (db, a, f, p, t) => listChannelsOf(db, a, 'file', f, p, t);

const LISTS: [what: string, index: string, list: Lister][] = [
  ['clients', 'clients_page', (db, a, t, nextToken) => listClients(db, a, { nextToken }, t)],
  ['clients by email', 'clients_email_unique', (db, a, t, nextToken) => listClients(db, a, { nextToken, email: 'a@b.c' }, t)],
  ['clients by givenName', 'clients_given_name_page', (db, a, t, nextToken) => listClients(db, a, { nextToken, givenName: 'Ada' }, t)],
  ['clients by familyName', 'clients_family_name_page', (db, a, t, nextToken) => listClients(db, a, { nextToken, familyName: 'L' }, t)],
  ['clients by companyId', 'client_companies_page', (db, a, t, nextToken) => listClients(db, a, { nextToken, companyId: FIELD_ID }, t)],
  ['companies', 'companies_page', (db, a, t, nextToken) => listCompanies(db, a, { nextToken }, t)],
  ['companies by name', 'companies_name_page', (db, a, t, nextToken) => listCompanies(db, a, { nextToken, name: 'Acme' }, t)],
  [
    'companies by isPlaceholder',
    'companies_placeholder_page',
    (db, a, t, nextToken) => listCompanies(db, a, { nextToken, isPlaceholder: true }, t),
  ],
  ['installs (ascending, sidebar order)', 'installs_page', (db, a, t, nextToken) => listInstalls(db, a, { nextToken }, t)],
  ['app connections', 'app_connections_page', (db, a, t, nextToken) => listConnections(db, a, FIELD_ID, { nextToken }, t)],
  [
    'app connections by companyId',
    'app_connections_company_page',
    (db, a, t, nextToken) => listConnections(db, a, FIELD_ID, { nextToken, companyId: FIELD_ID }, t),
  ],
  ['notifications (unread)', 'notifications_page', (db, a, t, nextToken) => listNotifications(db, a, { nextToken }, t)],
  ['notifications, read too', 'notifications_page', (db, a, t, nextToken) => listNotifications(db, a, { nextToken, includeRead: true }, t)],
  [
    'notifications by recipientClientId',
    'notifications_client_page',
    (db, a, t, nextToken) => listNotifications(db, a, { nextToken, recipientClientId: FIELD_ID }, t),
  ],
  [
    'notifications by recipientInternalUserId',
    'notifications_internal_user_page',
    (db, a, t, nextToken) => listNotifications(db, a, { nextToken, recipientInternalUserId: FIELD_ID }, t),
  ],
  ['audit log', 'audit_log_page', (db, a, t, nextToken) => listEntries(db, a, { nextToken }, t)],
  [
    'audit log by eventType',
    'audit_log_event_page',
    (db, a, t, nextToken) => listEntries(db, a, { nextToken, eventType: 'clientCreated' }, t),
  ],
  ['audit log by actorId', 'audit_log_actor_page', (db, a, t, nextToken) => listEntries(db, a, { nextToken, actorId: FIELD_ID }, t)],
  ['audit log by companyId', 'audit_log_company_page', (db, a, t, nextToken) => listEntries(db, a, { nextToken, companyId: FIELD_ID }, t)],
  [
    'audit log created after a time',
    'audit_log_page',
    (db, a, t, nextToken) => listEntries(db, a, { nextToken, createdAfter: '2026-01-01T00:00:00Z' }, t),
  ],
  ['invoices', 'invoices_page', (db, a, t, nextToken) => listInvoices(db, a, { nextToken }, t)],
  ['invoices by clientId', 'invoices_client_page', (db, a, t, nextToken) => listInvoices(db, a, { nextToken, clientId: FIELD_ID }, t)],
  ['invoices by companyId', 'invoices_company_page', (db, a, t, nextToken) => listInvoices(db, a, { nextToken, companyId: FIELD_ID }, t)],
  ['invoices by status', 'invoices_status_page', (db, a, t, nextToken) => listInvoices(db, a, { nextToken, status: 'open' }, t)],
  ['subscriptions', 'subscriptions_page', (db, a, t, nextToken) => listSubscriptions(db, a, { nextToken }, t)],
  [
    'subscriptions by clientId',
    'subscriptions_client_page',
    (db, a, t, nextToken) => listSubscriptions(db, a, { nextToken, clientId: FIELD_ID }, t),
  ],
  [
    'subscriptions by companyId',
    'subscriptions_company_page',
    (db, a, t, nextToken) => listSubscriptions(db, a, { nextToken, companyId: FIELD_ID }, t),
  ],
  ['payments', 'payments_page', (db, a, t, nextToken) => listPayments(db, a, { nextToken }, t)],
  ['payments by invoiceId', 'payments_invoice_page', (db, a, t, nextToken) => listPayments(db, a, { nextToken, invoiceId: FIELD_ID }, t)],
  ['products', 'products_page', (db, a, t, nextToken) => listProducts(db, a, { nextToken }, t)],
  ['products by name', 'products_name_page', (db, a, t, nextToken) => listProducts(db, a, { nextToken, name: 'Lamp' }, t)],
  ['prices', 'prices_page', (db, a, t, nextToken) => listPrices(db, a, { nextToken }, t)],
  ['prices by productId', 'prices_product_page', (db, a, t, nextToken) => listPrices(db, a, { nextToken, productId: FIELD_ID }, t)],
  ['invoice templates', 'invoice_templates_page', (db, a, t, nextToken) => listInvoiceTemplates(db, a, { nextToken }, t)],
  ['subscription templates', 'subscription_templates_page', (db, a, t, nextToken) => listSubscriptionTemplates(db, a, { nextToken }, t)],
  ['e-mail outbox', 'email_outbox_page', (db, a, t, nextToken) => listOutbox(db, a, { nextToken }, t, false)],
  ['internal users', 'internal_users_page', (db, a, t, nextToken) => listInternalUsers(db, a, { nextToken }, t)],
  ['custom fields', 'custom_fields_page', (db, a, t, nextToken) => listCustomFields(db, a, { nextToken }, t)],
  [
    'custom fields by entityType',
    'custom_fields_entity_page',
    (db, a, t, nextToken) => listCustomFields(db, a, { nextToken, entityType: 'client' }, t),
  ],
  ['custom field options', 'custom_field_options_page', (db, a, t, nextToken) => listOptions(db, a, FIELD_ID, { nextToken }, t)],
  [
    'custom field options by label',
    'custom_field_options_label_page',
    (db, a, t, nextToken) => listOptions(db, a, FIELD_ID, { nextToken, label: 'Gold' }, t),
  ],
  ['message channels', 'message_channels_page', (db, a, t, nextToken) => listChannels(db, a, {}, { nextToken }, t)],
  [
    'message channels by membershipType',
    'message_channels_type_page',
    (db, a, t, nextToken) => listChannels(db, a, { membershipType: 'group' }, { nextToken }, t),
  ],
  [
    'message channels by clientId',
    'message_channels_client_page',
    (db, a, t, nextToken) => listChannels(db, a, { clientId: FIELD_ID }, { nextToken }, t),
  ],
  [
    'message channels by last activity (the inbox)',
    'message_channels_activity_page',
    (db, a, t, nextToken) => listChannels(db, a, { byActivity: true }, { nextToken }, t),
  ],
  ['messages of a channel', 'messages_page', (db, a, t, nextToken) => listMessages(db, a, FIELD_ID, { nextToken }, t)],
  ['tasks', 'tasks_page', (db, a, t, nextToken) => listTasks(db, a, { nextToken }, t)],
  ['tasks by status', 'tasks_status_page', (db, a, t, nextToken) => listTasks(db, a, { nextToken, status: 'todo' }, t)],
  ['tasks by createdBy', 'tasks_created_by_page', (db, a, t, nextToken) => listTasks(db, a, { nextToken, createdBy: FIELD_ID }, t)],
  ['tasks by parentTaskId', 'tasks_parent_page', (db, a, t, nextToken) => listTasks(db, a, { nextToken, parentTaskId: FIELD_ID }, t)],
  ['tasks by clientId', 'tasks_client_page', (db, a, t, nextToken) => listTasks(db, a, { nextToken, clientId: FIELD_ID }, t)],
  [
    'tasks by internalUserId',
    'tasks_internal_user_page',
    (db, a, t, nextToken) => listTasks(db, a, { nextToken, internalUserId: FIELD_ID }, t),
  ],
  ['tasks by companyId', 'tasks_company_page', (db, a, t, nextToken) => listTasks(db, a, { nextToken, companyId: FIELD_ID }, t)],
  ['task templates', 'task_templates_page', (db, a, t, nextToken) => listTaskTemplates(db, a, { nextToken }, t)],
  ['notes', 'notes_page', (db, a, t, nextToken) => listNotes(db, a, { nextToken }, t)],
  ['notes by entityType', 'notes_entity_type_page', (db, a, t, nextToken) => listNotes(db, a, { nextToken, entityType: 'client' }, t)],
  [
    'notes of a client',
    'notes_client_page',
    (db, a, t, nextToken) => listNotes(db, a, { nextToken, entityType: 'client', entityId: FIELD_ID }, t),
  ],
  [
    'notes of a company',
    'notes_company_page',
    (db, a, t, nextToken) => listNotes(db, a, { nextToken, entityType: 'company', entityId: FIELD_ID }, t),
  ],
  ['file channels', 'file_channels_page', (db, a, t, nextToken) => listFileChannels(db, a, {}, { nextToken }, t)],
  [
    'file channels by membershipType',
    'file_channels_type_page',
    (db, a, t, nextToken) => listFileChannels(db, a, { membershipType: 'group' }, { nextToken }, t),
  ],
  [
    'file channels by clientId',
    'file_channels_client_page',
    (db, a, t, nextToken) => listFileChannels(db, a, { clientId: FIELD_ID }, { nextToken }, t),
  ],
  [
    'file channels by companyId',
    'file_channels_company_page',
    (db, a, t, nextToken) => listFileChannels(db, a, { companyId: FIELD_ID }, { nextToken }, t),
  ],
  ['files of a channel', 'files_page', (db, a, t, nextToken) => listFiles(db, a, FIELD_ID, undefined, { nextToken }, t)],
  ['files of a channel in a folder', 'files_page', (db, a, t, nextToken) => listFiles(db, a, FIELD_ID, 'Reports/2026', { nextToken }, t)],
  ['forms', 'forms_page', (db, a, t, nextToken) => listForms(db, a, { nextToken }, t)],
  ['form responses', 'form_responses_page', (db, a, t, nextToken) => listResponses(db, a, { nextToken }, t)],
  [
    'form responses by clientId',
    'form_responses_client_page',
    (db, a, t, nextToken) => listResponses(db, a, { nextToken, clientId: FIELD_ID }, t),
  ],
  [
    'form responses by status',
    'form_responses_status_page',
    (db, a, t, nextToken) => listResponses(db, a, { nextToken, status: 'pending' }, t),
  ],
  ['responses to a form', 'form_responses_form_page', (db, a, t, nextToken) => listResponses(db, a, { nextToken, formId: FIELD_ID }, t)],
  [
    'responses to a form by clientId',
    'form_responses_form_client_page',
    (db, a, t, nextToken) => listResponses(db, a, { nextToken, formId: FIELD_ID, clientId: FIELD_ID }, t),
  ],
  [
    'responses to a form by status',
    'form_responses_form_status_page',
    (db, a, t, nextToken) => listResponses(db, a, { nextToken, formId: FIELD_ID, status: 'completed' }, t),
  ],
  ['contract templates', 'contract_templates_page', (db, a, t, nextToken) => listContractTemplates(db, a, { nextToken }, t)],
  [
    'contract templates by name',
    'contract_templates_name_page',
    (db, a, t, nextToken) => listContractTemplates(db, a, { nextToken, name: 'NDA' }, t),
  ],
  ['contracts', 'contracts_page', (db, a, t, nextToken) => listContracts(db, a, { nextToken }, t)],
  [
    'contracts by contractTemplateId',
    'contracts_template_page',
    (db, a, t, nextToken) => listContracts(db, a, { nextToken, contractTemplateId: FIELD_ID }, t),
  ],
  ['contracts by clientId', 'contracts_client_page', (db, a, t, nextToken) => listContracts(db, a, { nextToken, clientId: FIELD_ID }, t)],
  ['contracts by status', 'contracts_status_page', (db, a, t, nextToken) => listContracts(db, a, { nextToken, status: 'signed' }, t)],
];

/** Accepts any token as a cursor, so each list's cursor query can be built without rows to page through. */
const anyCursor = {
  decode: () => ({ createdAt: '2026-01-01T00:00:00.000Z', id: FIELD_ID }),
  encode: () => 'token',
} as unknown as PageTokens;

/** The first query a list runs (its page), compiled for the backend. */
async function pageQuery(db: Kysely<DB>, list: Lister, nextToken: string | undefined): Promise<CompiledQuery> {
  const nodes: RootOperationNode[] = [];
  const capture: KyselyPlugin = {
    transformQuery: ({ node }) => {
      nodes.push(node);
      return node;
    },
    transformResult: async ({ result }) => result,
  };
  const access: Access = { workspaceId: FIELD_ID, companyIds: null, clientId: null };
  await list(db.withPlugin(capture), access, anyCursor, nextToken);
  return db.getExecutor().compileQuery(nodes[0], { queryId: 'plan' });
}

/** The plan's lines, as the database explains them. */
async function explain(db: Kysely<DB>, backend: Backend, query: CompiledQuery, sortPricedOut: boolean): Promise<string[]> {
  if (backend === 'sqlite') {
    const plan = await db.executeQuery<{ detail: string }>(CompiledQuery.raw(`EXPLAIN QUERY PLAN ${query.sql}`, [...query.parameters]));
    return plan.rows.map((row) => row.detail);
  }
  return db.transaction().execute(async (trx) => {
    await sql`set local enable_seqscan = off`.execute(trx);
    if (sortPricedOut) await sql`set local enable_sort = off`.execute(trx);
    const plan = await trx.executeQuery<{ 'QUERY PLAN': string }>(CompiledQuery.raw(`EXPLAIN ${query.sql}`, [...query.parameters]));
    return plan.rows.map((row) => row['QUERY PLAN']);
  });
}

for (const backend of BACKENDS) {
  // One migrated database per backend for every list: a plan is only explained, nothing is written.
  test(`every list pages along an index, at any depth [${backend}]`, async (t) => {
    const { app } = await harness(t, backend);
    for (const [what, index, list] of LISTS) {
      await t.test(`${what}: a range of ${index}, no sort, first page and after a cursor`, async () => {
        for (const nextToken of [undefined, 'cursor']) {
          const query = await pageQuery(app.ctx.db, list, nextToken);
          assert.match(
            query.sql,
            /order by .*(created_at|sort_key|activity_key).* (desc|asc), .*id.* (desc|asc) limit/,
            `${what}: ordered by the keyset`,
          );
          if (nextToken)
            assert.match(
              query.sql,
              /\(.*(created_at|sort_key|activity_key).*, .*id.*\) [<>] \(\$?\d*\??, \$?\d*\??\)/,
              `${what}: a row-value cursor`,
            );
          // An email is unique in a workspace: its one row may be sorted (PostgreSQL does, cheaply).
          const unique = index === 'clients_email_unique';
          const plan = (await explain(app.ctx.db, backend, query, !unique)).join('\n');
          const usesIndex =
            backend === 'sqlite'
              ? new RegExp(`USING (COVERING )?INDEX ${index}\\b`)
              : // On an empty table PostgreSQL prices the email's unique index and the page index alike.
                new RegExp(`Index (Only )?Scan( Backward)? using ${unique ? '(clients_email_unique|clients_page)' : index} `);
          assert.match(plan, usesIndex, `${what}: reads ${index}\n${query.sql}\n${plan}`);
          const sorts = backend === 'sqlite' ? /USE TEMP B-TREE FOR ORDER BY/ : /(^|->\s*)Sort\b/m;
          if (!unique) assert.doesNotMatch(plan, sorts, `${what}: no sort\n${plan}`);
          if (nextToken && !unique) {
            // The cursor is a bound of the index search, not a filter over rows read from the start.
            const bounded = backend === 'sqlite' ? /USING (COVERING )?INDEX \w+ \(.*\(\w+,\w+\)[<>]\(\?,\?\)\)/ : /Index Cond: .*ROW\(/;
            assert.match(plan, bounded, `${what}: the cursor bounds the index range\n${plan}`);
          }
        }
      });
    }
  });
}
