// Rule (issue 23, point 9): an app built on the official Node SDK runs unchanged against this service. The
// SDK itself (a dev dependency, nothing installed at run time) is given a session token minted by
// `portal sessions create`, whose baseUrl sends its calls to a real server, on SQLite and PostgreSQL; every
// operation of the SDK this service serves is called, and each answer is held to the type the SDK declares
// for it (test/helpers/sdk-types.ts). The operations not served yet are listed by name: the list may only
// shrink, and an operation both served here and listed fails the test.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { promisify } from 'node:util';
import { assemblyApi } from '@assembly-js/node-sdk';
import { oneJson } from './helpers/cli.js';
import { BACKENDS, freshDatabaseUrl } from './helpers/harness.js';
import { departures, sdkOperations } from './helpers/sdk-types.js';
import { serve, stop } from './helpers/server.js';

const run = promisify(execFile);

/** The SDK's operations not served here: none since issue 23 (the list may only shrink, and an operation both served and listed fails). */
const NOT_YET_SERVED = new Set<string>([]);

/** The fields the specification types as "string or null" / "nullable", where the SDK says only `?: string`. */
const NULLABLE_BY_THE_SPECIFICATION = new Set(['firstLoginDate', 'lastLoginDate', 'clientIds']);

/**
 * Where the SDK declares a bare array, the contract serves the specification's list (api-contract.md: "every
 * list is {data, nextToken}, installs and connections included"): the items are held to the SDK's type.
 */
const LISTS_BY_THE_CONTRACT = new Set(['listAppInstalls', 'listAppConnections']);

const APP_ID = '7b0e4a7e-8c1f-4d55-9f3a-2d5c3a1e9b11';

/** `portal …` on the database, as the README's sandbox steps run it; its one JSON line. */
async function portalJson(databaseUrl: string, env: Record<string, string>, ...args: string[]) {
  const { stdout } = await run(process.execPath, ['bin/portal.js', ...args, '--json'], {
    env: { ...process.env, DATABASE_URL: databaseUrl, ...env },
    timeout: 30_000,
  });
  return oneJson(stdout);
}

for (const backend of BACKENDS) {
  describe(`the official Node SDK against this service [${backend}]`, () => {
    test('every operation it has that is served here answers with the shape the SDK declares', { timeout: 120_000 }, async (t) => {
      const declared = sdkOperations();
      const url = await freshDatabaseUrl(t, backend, { sqliteFile: true });
      const cli = (...args: string[]) => portalJson(url, {}, ...args);
      const { workspaceId } = await cli('workspaces', 'create', '--name', 'SDK sandbox');
      // Limits roomy enough for one app's burst of calls (their rules are tested in test/limits.test.ts).
      const filesDir = await mkdtemp(join(tmpdir(), 'portal-sdk-files-'));
      t.after(() => rm(filesDir, { recursive: true, force: true }));
      const server = await serve({
        DATABASE_URL: url,
        FILES_DIR: filesDir,
        RATE_LIMIT_WRITE_CAPACITY: '1000',
        RATE_LIMIT_GET_CAPACITY: '1000',
      });
      t.after(() => stop(server.child));

      // The README's sandbox steps: an app key, its install, a staff user, a session token for it.
      const { apiKey } = await cli('keys', 'create', '--workspace', workspaceId, '--app', APP_ID);
      await cli('installs', 'create', '--workspace', workspaceId, '--type', 'custom', '--name', 'SDK app', '--app-id', APP_ID);
      const staff = await cli(
        'internal-users',
        'create',
        '--workspace',
        workspaceId,
        '--email',
        'dev@sdk.test',
        '--given-name',
        'Dev',
        '--family-name',
        'Eloper',
        '--role',
        'admin', // billing writes are an admin's
      );
      const template = await cli('task-templates', 'create', '--workspace', workspaceId, '--name', 'Onboarding');
      const form = await cli(
        'forms',
        'create',
        '--workspace',
        workspaceId,
        '--name',
        'Intake',
        '--fields',
        JSON.stringify([{ title: 'Company size', type: 'number' }]),
      );
      const contractTemplate = await cli(
        'contract-templates',
        'create',
        '--workspace',
        workspaceId,
        '--name',
        'NDA',
        '--fields',
        JSON.stringify([{ id: 'sig', type: 'signature', inputType: 'client' }]),
      );
      const manual = await cli('installs', 'create', '--workspace', workspaceId, '--type', 'manual', '--name', 'Handbook');
      const tags = await cli(
        'custom-fields',
        'create',
        '--workspace',
        workspaceId,
        '--entity',
        'client',
        '--key',
        'tags',
        '--name',
        'Tags',
        '--type',
        'multiSelect',
        '--options',
        'Gold,Silver',
      );
      const product = await cli('products', 'create', '--workspace', workspaceId, '--name', 'Retainer');
      const price = await cli(
        'prices',
        'create',
        '--workspace',
        workspaceId,
        '--product',
        product.id,
        '--amount',
        '5000',
        '--interval',
        'month',
      );
      const session = await portalJson(
        url,
        {}, // no PORTAL_URL: the token's baseUrl is the address the server recorded when it started
        'sessions',
        'create',
        '--workspace',
        workspaceId,
        '--api-key',
        apiKey,
        '--internal-user',
        staff.id,
      );
      const sdk = assemblyApi({ apiKey, token: session.token });

      const called = new Set<string>();
      // The SDK's own .d.ts files import without extensions, so under NodeNext its methods type as `any`:
      // the answers are held to its declared types at run time instead (sdk-types.ts reads them).
      /** Calls one SDK operation; its answer must hold to the SDK's declared type. */
      // biome-ignore lint/suspicious/noExplicitAny: an answer of the SDK, checked against its declared shape
      const call = async (operation: string, send: () => PromiseLike<unknown>): Promise<Record<string, any>> => {
        const shape = declared.get(operation);
        assert.ok(shape, `${operation} is an operation of the SDK`);
        const answer = await Promise.resolve(send()).catch((error: Error & { body?: unknown }) => {
          throw new Error(`${operation}: ${error.message} ${JSON.stringify(error.body)}`);
        });
        const held = LISTS_BY_THE_CONTRACT.has(operation) && shape.kind === 'array' ? (answer as { data?: unknown }).data : answer;
        assert.deepEqual(
          departures(held, shape, NULLABLE_BY_THE_SPECIFICATION),
          [],
          `${operation}: ${JSON.stringify(answer).slice(0, 500)}`,
        );
        called.add(operation);
        return answer as Record<string, unknown>;
      };

      const workspace = await call('retrieveWorkspace', () => sdk.retrieveWorkspace());
      assert.equal(workspace.id, workspaceId);
      const company = await call('createCompany', () => sdk.createCompany({ requestBody: { name: 'Acme' } }));
      await call('retrieveCompany', () => sdk.retrieveCompany({ id: company.id as string }));
      await call('updateCompany', () => sdk.updateCompany({ id: company.id as string, requestBody: { name: 'Acme Inc' } }));
      await call('listCompanies', () => sdk.listCompanies({}));
      const client = await call('createClient', () =>
        sdk.createClient({ requestBody: { givenName: 'Ada', familyName: 'Lovelace', email: 'ada@sdk.test', companyId: company.id } }),
      );
      const clientId = client.id as string;
      assert.equal(client.firstLoginDate, null, 'the specification: null until the first login');
      await call('retrieveClient', () => sdk.retrieveClient({ id: clientId }));
      await call('updateClient', () => sdk.updateClient({ id: clientId, requestBody: { givenName: 'Augusta' } }));
      await call('updateAClientDestructive', () =>
        sdk.updateAClientDestructive({ id: clientId, requestBody: { givenName: 'Ada', familyName: 'King', companyId: company.id } }),
      );
      await call('listClients', () => sdk.listClients({}));
      const users = await call('listInternalUsers', () => sdk.listInternalUsers({}));
      assert.ok(users.data?.some((u: { id?: string }) => u.id === staff.id));
      await call('retrieveInternalUser', () => sdk.retrieveInternalUser({ id: staff.id }));
      await call('listCustomFields', () => sdk.listCustomFields({}));
      await call('listCustomFieldOptions', () => sdk.listCustomFieldOptions({ id: tags.id }));
      const installs = await call('listAppInstalls', () => sdk.listAppInstalls());
      assert.ok(installs.data.some((install: { id?: string }) => install.id === manual.id));
      await call('retrieveAppInstall', () => sdk.retrieveAppInstall({ installId: manual.id }));
      await call('createAppConnection', () =>
        sdk.createAppConnection({
          installId: manual.id,
          requestBody: { type: 'link', content: 'https://docs.sdk.test', clientIds: [clientId] },
        }),
      );
      await call('listAppConnections', () => sdk.listAppConnections({ installId: manual.id }));

      const products = await call('listProducts', () => sdk.listProducts({}));
      assert.equal(products.data?.[0]?.id, product.id);
      await call('retrieveProduct', () => sdk.retrieveProduct({ id: product.id }));
      await call('listPrices', () => sdk.listPrices({}));
      await call('retrievePrice', () => sdk.retrievePrice({ id: price.id }));
      await call('listInvoiceTemplates', () => sdk.listInvoiceTemplates({}));
      await call('listSubscriptionTemplates', () => sdk.listSubscriptionTemplates({}));
      const invoice = await call('createInvoice', () =>
        sdk.createInvoice({
          requestBody: {
            recipientId: clientId,
            lineItems: [{ amount: 1200, description: 'Setup', quantity: 1 }],
            daysUntilDue: 14,
            paymentMethodPreferences: [{ type: 'creditCard', feePaidByClient: false }],
          },
        }),
      );
      await call('retrieveInvoice', () => sdk.retrieveInvoice({ id: invoice.id as string }));
      await call('listInvoices', () => sdk.listInvoices({}));
      await call('listPayments', () => sdk.listPayments({}));
      const subscription = await call('createSubscription', () =>
        sdk.createSubscription({
          requestBody: {
            recipientId: clientId,
            lineItems: [{ priceId: price.id, quantity: 1 }],
            daysUntilDue: 14,
            paymentMethodPreferences: [{ type: 'creditCard', feePaidByClient: false }],
            collectionMethod: 'sendInvoice',
          },
        }),
      );
      await call('retrieveSubscription', () => sdk.retrieveSubscription({ id: subscription.id as string }));
      await call('listSubscriptions', () => sdk.listSubscriptions({}));
      await call('cancelSubscription', () => sdk.cancelSubscription({ id: subscription.id as string }));

      const notification = await call('createNotification', () =>
        sdk.createNotification({
          requestBody: { senderId: staff.id, recipientId: clientId, deliveryTargets: { inProduct: { title: 'Welcome' } } },
        }),
      );
      const notificationId = notification.id as string;
      await call('listNotifications', () => sdk.listNotifications({}));
      await call('markNotificationRead', () => sdk.markNotificationRead({ id: notificationId }));
      await call('markNotificationUnread', () => sdk.markNotificationUnread({ id: notificationId }));
      await call('deleteNotification', () => sdk.deleteNotification({ id: notificationId }));

      const channel = await call('createMessageChannel', () =>
        sdk.createMessageChannel({ requestBody: { membershipType: 'individual', clientId } }),
      );
      const channelId = channel.id as string;
      await call('retrieveMessageChannel', () => sdk.retrieveMessageChannel({ id: channelId }));
      await call('listMessageChannels', () => sdk.listMessageChannels({}));
      await call('sendMessage', () => sdk.sendMessage({ requestBody: { channelId, text: 'Hello from the SDK', senderId: staff.id } }));
      const messages = await call('listMessages', () => sdk.listMessages({ channelId }));
      assert.deepEqual(
        messages.data.map((m: { text?: string }) => m.text),
        ['Hello from the SDK'],
      );

      await call('listTaskTemplates', () => sdk.listTaskTemplates({}));
      await call('retrieveTaskTemplate', () => sdk.retrieveTaskTemplate({ id: template.id }));
      const task = await call('createTask', () => sdk.createTask({ requestBody: { name: 'Sign the W-9', clientId } }));
      const taskId = task.id as string;
      await call('retrieveTask', () => sdk.retrieveTask({ id: taskId }));
      await call('updateTask', () => sdk.updateTask({ id: taskId, requestBody: { status: 'completed' } }));
      await call('retrieveTasks', () => sdk.retrieveTasks({}));
      await call('deleteTask', () => sdk.deleteTask({ id: taskId }));
      const note = await call('createNote', () =>
        sdk.createNote({ requestBody: { entityType: 'client', entityId: clientId, title: 'Kick-off', content: '<p>Notes</p>' } }),
      );
      const noteId = note.id as string;
      await call('retrieveNote', () => sdk.retrieveNote({ id: noteId }));
      await call('updateNote', () => sdk.updateNote({ id: noteId, requestBody: { title: 'Kick-off call' } }));
      await call('listNotes', () => sdk.listNotes({}));
      await call('deleteNote', () => sdk.deleteNote({ id: noteId }));

      const fileChannel = await call('createFileChannel', () =>
        sdk.createFileChannel({ requestBody: { membershipType: 'individual', clientId } }),
      );
      const fileChannelId = fileChannel.id as string;
      await call('retrieveFileChannel', () => sdk.retrieveFileChannel({ id: fileChannelId }));
      await call('listFileChannels', () => sdk.listFileChannels({}));
      const folder = await call('createAFileDeprecated', () =>
        sdk.createAFileDeprecated({ requestBody: { type: 'folder', channelID: fileChannelId, path: 'Shared' } }),
      );
      const file = await call('createFile', () =>
        sdk.createFile({ fileType: 'file', requestBody: { channelId: fileChannelId, path: 'Shared/hello.txt' } }),
      );
      const fileId = file.id as string;
      // The SDK has no upload call: the content goes to the uploadUrl the creation answered (docs/api.md). Signed URLs
      // are built on PORTAL_URL (unset: http://HOST:PORT, and this server listens on a port of its own): on this server.
      const onServer = (signed: string) => {
        const { pathname, search } = new URL(signed);
        return `${server.base}${pathname}${search}`;
      };
      const upload = await fetch(onServer(file.uploadUrl as string), {
        method: 'PUT',
        body: 'hello',
        headers: { 'content-type': 'text/plain' },
      });
      assert.equal(upload.status, 200, await upload.text());
      assert.equal((await call('retrieveFile', () => sdk.retrieveFile({ id: fileId }))).status, 'completed');
      await call('listFiles', () => sdk.listFiles({ channelId: fileChannelId }));
      const { downloadUrl } = await call('retrieveDownloadUrlOfAFile', () => sdk.retrieveDownloadUrlOfAFile({ id: fileId }));
      assert.equal(await (await fetch(onServer(downloadUrl))).text(), 'hello');
      assert.equal(String(await call('downloadAFile', () => sdk.downloadAFile({ id: fileId }))), 'hello');
      await call('putV1FilesIdPermissions', () =>
        sdk.putV1FilesIdPermissions({ id: folder.id as string, requestBody: { clientPermissions: 'read_only' } }),
      );
      await call('deleteFile', () => sdk.deleteFile({ id: fileId }));

      await call('listForms', () => sdk.listForms({}));
      await call('retrieveForm', () => sdk.retrieveForm({ id: form.id }));
      await call('requestFormResponse', () =>
        sdk.requestFormResponse({ requestBody: { formId: form.id, clientCompanyIds: [{ clientId, companyId: company.id }] } }),
      );
      const responses = await call('listFormResponses', () => sdk.listFormResponses({ id: form.id }));
      assert.equal(responses.data.length, 1);
      await call('listContractTemplates', () => sdk.listContractTemplates({}));
      await call('retrieveContractTemplate', () => sdk.retrieveContractTemplate({ id: contractTemplate.id }));
      const contract = await call('sendContract', () =>
        sdk.sendContract({ requestBody: { contractTemplateId: contractTemplate.id, clientId } }),
      );
      await call('listContracts', () => sdk.listContracts({}));
      await call('retrieveContract', () => sdk.retrieveContract({ id: contract.id as string }));

      await call('deleteClient', () => sdk.deleteClient({ id: clientId }));
      await call('deleteCompany', () => sdk.deleteCompany({ id: company.id as string }));

      const unserved = [...declared.keys()].filter((operation) => !called.has(operation));
      assert.deepEqual(
        unserved.filter((operation) => !NOT_YET_SERVED.has(operation)),
        [],
        'every operation not listed as not yet served is called above',
      );
      assert.deepEqual(
        [...NOT_YET_SERVED].filter((operation) => called.has(operation) || !declared.has(operation)),
        [],
        'the not-yet-served list names only SDK operations that are not called',
      );
      t.diagnostic(`${called.size} of ${declared.size} SDK operations called; ${NOT_YET_SERVED.size} not served`);
    });
  });
}
