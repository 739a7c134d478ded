// Rule (issue 12, part 3): the table of docs/api.md (Audit log and webhooks; it was the README's until issue 21,
// part 8) maps each operation of the service to the audit events it records. This test reads that table, runs
// each operation, and checks that exactly those entries were written; and that every event type of the
// specification is either in the table or in docs/api.md's list of events not emitted (with the reason there).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { AUDIT_EVENT_TYPES } from '../src/audit/index.js';
import {
  APP_ID,
  TEST_ADMIN_TOKEN,
  adminRequest,
  createClient,
  createTestInternalUser,
  defineCustomField,
  populatedWorkspace,
  revokeKey,
  sessionKeyFor,
} from './helpers/factories.js';
import { heldWithin } from './helpers/eventually.js';
import { solidPng } from './helpers/images.js';
import { type PortalBrowser, lastEmailTo, portalBrowser } from './helpers/portal.js';
import { BACKENDS, type Harness, adminHarness } from './helpers/harness.js';

const API_DOC = readFileSync(join('docs', 'api.md'), 'utf8');

function between(start: string, end: string): string {
  const from = API_DOC.indexOf(`<!-- ${start} -->`);
  const to = API_DOC.indexOf(`<!-- ${end} -->`);
  assert.ok(from >= 0 && to > from, `docs/api.md has the ${start} … ${end} block`);
  return API_DOC.slice(from, to);
}

/** `| operation | events |` rows of the table. */
const TABLE: [operation: string, events: string[]][] = between('audit-events:start', 'audit-events:end')
  .split('\n')
  .filter((line) => line.startsWith('| ') && !line.startsWith('| Operation'))
  .map((line) => {
    const [operation, events] = line.split(' | ').map((cell) => cell.replace(/^\| /, '').replace(/ \|$/, '').trim());
    return [operation, events.split(',').map((e) => e.trim())];
  });

const NOT_EMITTED = between('audit-events-not-emitted:start', 'audit-events-not-emitted:end')
  .split('\n')
  .filter((line) => line.startsWith('- '))
  .flatMap((line) =>
    line
      .slice(2, line.indexOf(':'))
      .split(',')
      .map((e) => e.trim()),
  );

type World = Awaited<ReturnType<typeof populatedWorkspace>> & { h: Harness; state: Record<string, string> };

const anInvoice = (companyId: string) => ({ companyId, lineItems: [{ amount: 100, quantity: 1 }], daysUntilDue: 7 });

async function invoiceOf(w: World, extra: object = {}): Promise<string> {
  const res = await w.h.as(w.ws.apiKey, { method: 'POST', url: '/v1/invoices', payload: { ...anInvoice(w.company.id), ...extra } });
  return res.json().id;
}

const TEST_CARD = { expMonth: 12, expYear: 2030 };

/** An invoice paid with a sandbox test card (its setup records events the runner's count leaves out); the payment's id. */
async function paidWith(w: World, number: string): Promise<string> {
  const invoice = await invoiceOf(w);
  await call(w.h, w.ws.apiKey, 'POST', '/v1/payment-methods', { companyId: w.company.id, card: { ...TEST_CARD, number } });
  await call(w.h, w.ws.apiKey, 'POST', `/v1/invoices/${invoice}/pay`, {});
  const payments = await w.h.as(w.ws.apiKey, { method: 'GET', url: `/v1/payments?invoiceId=${invoice}` });
  return payments.json().data[0].id;
}

async function adminCall(h: Harness, url: string, payload?: object) {
  const res = await adminRequest(h, 'POST', url, payload);
  assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
}

const PASSWORD = 'correct horse battery';

/** An invited client (its invite link's token in `w.state.invite`), and a browser on the workspace's portal. */
async function invitedClient(w: World): Promise<PortalBrowser> {
  const res = await w.h.as(w.ws.apiKey, {
    method: 'POST',
    url: '/v1/clients?sendInvite=true',
    payload: { email: 'grace@a.test', givenName: 'G', familyName: 'H', companyId: w.company.id },
  });
  w.state.invite = new URL(res.json().inviteUrl).hash.slice(1);
  w.state.clientId = res.json().id;
  w.h.clock.advance(1000);
  return portalBrowser(w.h, w.ws.workspaceId);
}

/** A client who accepted its invite with PASSWORD, signed in on `w.state.browser` (kept in `browsers`). */
const browsers = new WeakMap<World, PortalBrowser>();
async function signedInClient(w: World): Promise<void> {
  const browser = await invitedClient(w);
  const accepted = await browser.call('POST', '/invites/accept', { token: w.state.invite, password: PASSWORD });
  assert.equal(accepted.statusCode, 200, accepted.body);
  browsers.set(w, browser);
}

async function portalCall(
  w: World,
  method: 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  path: string,
  payload?: object,
  expected = 200,
  headers: Record<string, string> = {},
) {
  const browser = browsers.get(w) ?? portalBrowser(w.h, w.ws.workspaceId);
  const res = await browser.call(method, path, payload, headers);
  assert.equal(res.statusCode, expected, `${method} ${path}: ${res.body}`);
  await w.h.app.ctx.afterResponse.settled(); // what a link request does after its answer (magicLinkSent)
}

/** Each operation of the table, as the test runs it (docs/api.md's wording is the key). */
const OPERATIONS: Record<string, { before?: (w: World) => Promise<void>; run: (w: World) => Promise<unknown> }> = {
  '`POST /v1/clients`': {
    run: ({ h, ws, company }) =>
      call(h, ws.apiKey, 'POST', '/v1/clients', { email: 'n@a.test', givenName: 'N', familyName: 'C', companyId: company.id }),
  },
  '`POST /v1/clients?sendInvite=true`': {
    run: ({ h, ws, company }) =>
      call(h, ws.apiKey, 'POST', '/v1/clients?sendInvite=true', {
        email: 'i@a.test',
        givenName: 'I',
        familyName: 'C',
        companyId: company.id,
      }),
  },
  '`PATCH /v1/clients/{id}` (name or companies)': {
    run: ({ h, ws, client }) => call(h, ws.apiKey, 'PATCH', `/v1/clients/${client.id}`, { givenName: 'Renamed' }),
  },
  '`PATCH /v1/clients/{id}` (customFields)': {
    before: ({ h, ws }) => defineCustomField(h, ws.workspaceId, { entity: 'client', key: 'tier', type: 'text' }).then(() => undefined),
    run: ({ h, ws, client }) => call(h, ws.apiKey, 'PATCH', `/v1/clients/${client.id}`, { customFields: { tier: 'gold' } }),
  },
  '`PUT /v1/clients/{id}` (name and customFields)': {
    before: ({ h, ws }) => defineCustomField(h, ws.workspaceId, { entity: 'client', key: 'tier', type: 'text' }).then(() => undefined),
    run: ({ h, ws, client, company }) =>
      call(h, ws.apiKey, 'PUT', `/v1/clients/${client.id}`, {
        givenName: 'P',
        familyName: 'Q',
        companyId: company.id,
        customFields: { tier: 'x' },
      }),
  },
  '`DELETE /v1/clients/{id}`': { run: ({ h, ws, client }) => call(h, ws.apiKey, 'DELETE', `/v1/clients/${client.id}`) },
  '`POST /v1/companies`': { run: ({ h, ws }) => call(h, ws.apiKey, 'POST', '/v1/companies', { name: 'New Co' }) },
  '`PATCH /v1/companies/{id}` (name)': {
    run: ({ h, ws, company }) => call(h, ws.apiKey, 'PATCH', `/v1/companies/${company.id}`, { name: 'Renamed' }),
  },
  '`PATCH /v1/companies/{id}` (customFields)': {
    before: ({ h, ws }) => defineCustomField(h, ws.workspaceId, { entity: 'company', key: 'size', type: 'text' }).then(() => undefined),
    run: ({ h, ws, company }) => call(h, ws.apiKey, 'PATCH', `/v1/companies/${company.id}`, { customFields: { size: 'big' } }),
  },
  '`DELETE /v1/companies/{id}` (its only client moves to a placeholder)': {
    run: ({ h, ws, company }) => call(h, ws.apiKey, 'DELETE', `/v1/companies/${company.id}`),
  },
  '`portal internal-users create`': {
    run: ({ h, ws }) => createTestInternalUser(h, ws.workspaceId, { email: 'x@a.test', givenName: 'X', familyName: 'Y' }),
  },
  '`portal internal-users update` (role)': {
    run: ({ h, ws, user }) => adminRequest(h, 'PATCH', `/admin/workspaces/${ws.workspaceId}/internal-users/${user.id}`, { role: 'admin' }),
  },
  '`portal internal-users update` (companies)': {
    run: ({ h, ws, user, company }) =>
      adminRequest(h, 'PATCH', `/admin/workspaces/${ws.workspaceId}/internal-users/${user.id}`, { companyAccessList: [company.id] }),
  },
  '`portal internal-users delete`': {
    run: ({ h, ws, user }) => adminRequest(h, 'DELETE', `/admin/workspaces/${ws.workspaceId}/internal-users/${user.id}`),
  },
  '`POST /v1/internal-users`': {
    run: ({ h, ws }) => call(h, ws.apiKey, 'POST', '/v1/internal-users', { email: 'x@a.test', givenName: 'X', familyName: 'Y' }),
  },
  '`POST /v1/internal-users?sendInvite=true`': {
    run: ({ h, ws }) =>
      call(h, ws.apiKey, 'POST', '/v1/internal-users?sendInvite=true', { email: 'x@a.test', givenName: 'X', familyName: 'Y' }),
  },
  '`PATCH /v1/internal-users/{id}` (role)': {
    run: ({ h, ws, user }) => call(h, ws.apiKey, 'PATCH', `/v1/internal-users/${user.id}`, { role: 'admin' }),
  },
  '`PATCH /v1/internal-users/{id}` (companies)': {
    run: ({ h, ws, user, company }) => call(h, ws.apiKey, 'PATCH', `/v1/internal-users/${user.id}`, { companyAccessList: [company.id] }),
  },
  '`DELETE /v1/internal-users/{id}`': {
    run: ({ h, ws, user }) => call(h, ws.apiKey, 'DELETE', `/v1/internal-users/${user.id}`),
  },
  '`POST /v1/clients/{id}/invite`': {
    run: ({ h, ws, client }) => call(h, ws.apiKey, 'POST', `/v1/clients/${client.id}/invite`),
  },
  '`POST /portal/{id}/api/invites/accept`': {
    before: async (w) => {
      await invitedClient(w);
    },
    run: (w) => portalCall(w, 'POST', '/invites/accept', { token: w.state.invite, password: PASSWORD }),
  },
  '`POST /portal/{id}/api/sign-in/password`': {
    before: signedInClient,
    run: (w) => portalCall(w, 'POST', '/sign-in/password', { email: 'grace@a.test', password: PASSWORD }),
  },
  '`POST /portal/{id}/api/sign-in/password` (a wrong password)': {
    before: signedInClient,
    run: (w) => portalCall(w, 'POST', '/sign-in/password', { email: 'grace@a.test', password: 'not the password' }, 401),
  },
  '`POST /portal/{id}/api/sign-in/link`': {
    before: signedInClient,
    run: (w) => portalCall(w, 'POST', '/sign-in/link', { email: 'grace@a.test' }, 202),
  },
  '`POST /portal/{id}/api/sign-in/link/redeem`': {
    before: async (w) => {
      await signedInClient(w);
      await portalCall(w, 'POST', '/sign-in/link', { email: 'grace@a.test' }, 202);
      w.state.link = (await lastEmailTo(w.h, w.ws.workspaceId, 'grace@a.test')).token ?? '';
    },
    run: (w) => portalCall(w, 'POST', '/sign-in/link/redeem', { token: w.state.link }),
  },
  '`DELETE /portal/{id}/api/session`': { before: signedInClient, run: (w) => portalCall(w, 'DELETE', '/session', undefined, 204) },
  '`PUT /portal/{id}/api/password`': {
    before: signedInClient,
    run: (w) => portalCall(w, 'PUT', '/password', { currentPassword: PASSWORD, newPassword: 'another long password' }, 204),
  },
  '`POST /portal/{id}/api/password-resets/complete`': {
    before: async (w) => {
      await signedInClient(w);
      await portalCall(w, 'POST', '/password-resets', { email: 'grace@a.test' }, 202);
      w.state.link = (await lastEmailTo(w.h, w.ws.workspaceId, 'grace@a.test')).token ?? '';
    },
    run: (w) => portalCall(w, 'POST', '/password-resets/complete', { token: w.state.link, password: 'another long password' }, 204),
  },
  '`POST /portal/{id}/api/apps/{installId}/session`': {
    before: async (w) => {
      await signedInClient(w);
      const install = await adminRequest(w.h, 'POST', `/admin/workspaces/${w.ws.workspaceId}/installs`, {
        type: 'custom',
        name: 'Docs',
        appId: APP_ID,
      });
      w.state.install = install.json().id;
      const given = await w.h.app.inject({
        method: 'PUT',
        url: `/admin/workspaces/${w.ws.workspaceId}/installs/${w.state.install}/portal-key`,
        headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
        payload: { apiKey: w.app.apiKey },
      });
      assert.equal(given.statusCode, 200, given.body);
    },
    run: (w) => portalCall(w, 'POST', `/apps/${w.state.install}/session`),
  },
  '`DELETE /portal/{id}/api/identities/google`': {
    // The identity as a Google sign-in links it (src/modules/surfaces/sign-in/oidc.test.ts runs that against a real provider).
    before: async (w) => {
      await signedInClient(w);
      await w.h.app.ctx.db
        .insertInto('sign_in_identities')
        .values({
          id: crypto.randomUUID(),
          workspace_id: w.ws.workspaceId,
          client_id: w.state.clientId,
          internal_user_id: null,
          provider: 'google',
          subject: 'g-1',
          email: null,
          created_at: new Date(w.h.clock.now()).toISOString(),
        })
        .execute();
    },
    run: (w) => portalCall(w, 'DELETE', '/identities/google', undefined, 204),
  },
  '`PATCH /portal/{id}/api/profile` (a client’s names)': {
    before: signedInClient,
    run: (w) => portalCall(w, 'PATCH', '/profile', { givenName: 'Grace', familyName: 'Hopper' }),
  },
  '`PUT /portal/{id}/api/profile/avatar` (a client’s picture)': {
    before: signedInClient,
    run: (w) => portalCall(w, 'PUT', '/profile/avatar', solidPng(2, 2, [0, 0, 0]), 200, { 'content-type': 'image/png' }),
  },
  '`DELETE /portal/{id}/api/profile/avatar` (a client’s picture)': {
    before: async (w) => {
      await signedInClient(w);
      await portalCall(w, 'PUT', '/profile/avatar', solidPng(2, 2, [0, 0, 0]), 200, { 'content-type': 'image/png' });
    },
    run: (w) => portalCall(w, 'DELETE', '/profile/avatar'),
  },
  '`PATCH /admin/workspaces/{id}` (staffMfaRequired becomes true)': {
    run: ({ h, ws }) => adminRequest(h, 'PATCH', `/admin/workspaces/${ws.workspaceId}`, { staffMfaRequired: true }),
  },
  '`PATCH /admin/workspaces/{id}` (staffMfaRequired becomes false)': {
    before: async ({ h, ws }) => {
      await adminRequest(h, 'PATCH', `/admin/workspaces/${ws.workspaceId}`, { staffMfaRequired: true });
    },
    run: ({ h, ws }) => adminRequest(h, 'PATCH', `/admin/workspaces/${ws.workspaceId}`, { staffMfaRequired: false }),
  },
  '`portal keys create`': { run: ({ h, ws }) => h.appKey(ws.workspaceId, '7b0e4a7e-8c1f-4d55-9f3a-2d5c3a1e9b12') },
  '`portal keys revoke`': { run: ({ h, ws, app }) => revokeKey(h, ws.workspaceId, app.apiKeyId) },
  '`POST /v1/audit-logs` (a custom type)': {
    run: ({ h, ws }) => call(h, ws.apiKey, 'POST', '/v1/audit-logs', { eventType: 'exported', eventDescription: 'e', context: {} }),
  },
  '`POST /v1/audit-logs` (sessionStarted, a session open)': {
    before: ({ h, ws, client }) =>
      call(h, ws.apiKey, 'POST', '/v1/audit-logs', {
        eventType: 'sessionStarted',
        eventDescription: 's',
        context: {},
        actorId: client.id,
      }).then(() => undefined),
    run: ({ h, ws, client }) =>
      call(h, ws.apiKey, 'POST', '/v1/audit-logs', { eventType: 'sessionStarted', eventDescription: 's', context: {}, actorId: client.id }),
  },
  '`POST /v1/audit-logs` (sessionEnded)': {
    run: ({ h, ws, client }) =>
      call(h, ws.apiKey, 'POST', '/v1/audit-logs', { eventType: 'sessionEnded', eventDescription: 'e', context: {}, actorId: client.id }),
  },
  '`POST /v1/webhooks/{event}`': { run: ({ h, app }) => call(h, app.apiKey, 'POST', '/v1/webhooks/order.shipped', { id: 1 }) },
  '`portal products create`': {
    run: ({ h, ws }) => adminCall(h, `/admin/workspaces/${ws.workspaceId}/products`, { name: 'Lamp' }),
  },
  '`portal products update` (name, description or status)': {
    before: async (w) => {
      const res = await adminRequest(w.h, 'POST', `/admin/workspaces/${w.ws.workspaceId}/products`, { name: 'Lamp' });
      w.state.product = res.json().id;
    },
    run: async ({ h, ws, state }) => {
      const res = await h.app.inject({
        method: 'PATCH',
        url: `/admin/workspaces/${ws.workspaceId}/products/${state.product}`,
        headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
        payload: { name: 'Desk Lamp', status: 'archived' },
      });
      assert.equal(res.statusCode, 200, res.body);
    },
  },
  '`portal prices create`': {
    before: async (w) => {
      const res = await adminRequest(w.h, 'POST', `/admin/workspaces/${w.ws.workspaceId}/products`, { name: 'Lamp' });
      w.state.product = res.json().id;
    },
    run: ({ h, ws, state }) => adminCall(h, `/admin/workspaces/${ws.workspaceId}/prices`, { productId: state.product, amount: 1999 }),
  },
  '`POST /v1/invoices`': { run: ({ h, ws, company }) => call(h, ws.apiKey, 'POST', '/v1/invoices', anInvoice(company.id)) },
  '`portal invoices pay` (an open invoice)': {
    before: async (w) => {
      w.state.invoice = await invoiceOf(w);
    },
    run: ({ h, ws, state }) => adminCall(h, `/admin/workspaces/${ws.workspaceId}/invoices/${state.invoice}/pay`),
  },
  '`POST /v1/invoices/{id}/pay` (a good card)': {
    before: async (w) => {
      w.state.invoice = await invoiceOf(w);
      await call(w.h, w.ws.apiKey, 'POST', '/v1/payment-methods', {
        companyId: w.company.id,
        card: { ...TEST_CARD, number: '4242424242424242' },
      });
    },
    run: ({ h, ws, state }) => call(h, ws.apiKey, 'POST', `/v1/invoices/${state.invoice}/pay`, {}),
  },
  '`POST /v1/invoices/{id}/pay` (a declined card: 402)': {
    before: async (w) => {
      w.state.invoice = await invoiceOf(w);
      await call(w.h, w.ws.apiKey, 'POST', '/v1/payment-methods', {
        companyId: w.company.id,
        card: { ...TEST_CARD, number: '4000000000000002' },
      });
    },
    run: async ({ h, ws, state }) => {
      const res = await h.as(ws.apiKey, { method: 'POST', url: `/v1/invoices/${state.invoice}/pay`, payload: {} });
      assert.equal(res.statusCode, 402, res.body);
    },
  },
  '`POST /v1/refunds`': {
    before: async (w) => {
      w.state.payment = await paidWith(w, '4242424242424242');
    },
    run: ({ h, ws, state }) => call(h, ws.apiKey, 'POST', '/v1/refunds', { paymentId: state.payment }),
  },
  '`POST /v1/refunds` (a card that refuses refunds)': {
    before: async (w) => {
      w.state.payment = await paidWith(w, '4000000000005126');
    },
    run: ({ h, ws, state }) => call(h, ws.apiKey, 'POST', '/v1/refunds', { paymentId: state.payment }),
  },
  '`portal invoices void` (an open invoice)': {
    before: async (w) => {
      w.state.invoice = await invoiceOf(w);
    },
    run: ({ h, ws, state }) => adminCall(h, `/admin/workspaces/${ws.workspaceId}/invoices/${state.invoice}/void`),
  },
  '`POST /v1/invoices/{id}/mark-paid` (an open invoice)': {
    before: async (w) => {
      w.state.invoice = await invoiceOf(w);
    },
    run: ({ h, ws, state }) => call(h, ws.apiKey, 'POST', `/v1/invoices/${state.invoice}/mark-paid`),
  },
  '`POST /v1/invoices/{id}/void` (a draft or open invoice)': {
    before: async (w) => {
      w.state.invoice = await invoiceOf(w);
    },
    run: ({ h, ws, state }) => call(h, ws.apiKey, 'POST', `/v1/invoices/${state.invoice}/void`),
  },
  '`PATCH /v1/invoices/{id}` (a draft)': {
    before: async (w) => {
      w.state.invoice = await invoiceOf(w, { createDraft: true });
    },
    run: ({ h, ws, state }) => call(h, ws.apiKey, 'PATCH', `/v1/invoices/${state.invoice}`, { memo: 'Thanks' }),
  },
  '`POST /v1/invoices/{id}/finalize` (a draft)': {
    before: async (w) => {
      w.state.invoice = await invoiceOf(w, { createDraft: true });
    },
    run: ({ h, ws, state }) => call(h, ws.apiKey, 'POST', `/v1/invoices/${state.invoice}/finalize`),
  },
  '`GET /v1/invoices/{id}/pdf`': {
    before: async (w) => {
      w.state.invoice = await invoiceOf(w);
    },
    run: ({ h, ws, state }) => call(h, ws.apiKey, 'GET', `/v1/invoices/${state.invoice}/pdf`),
  },
  '`DELETE /v1/invoices/{id}` (a draft)': {
    before: async (w) => {
      w.state.invoice = await invoiceOf(w, { createDraft: true });
    },
    run: ({ h, ws, state }) => call(h, ws.apiKey, 'DELETE', `/v1/invoices/${state.invoice}`),
  },
  '`POST /v1/subscriptions` (starting now: its first period is billed at once)': {
    run: async ({ h, ws, company }) => {
      await call(h, ws.apiKey, 'POST', '/v1/subscriptions', { ...anInvoice(company.id), interval: 'month' });
      // The biller, woken by the commit, bills the first period in its own transaction: wait for it.
      await heldWithin(5000, 'the first period billed', async () => {
        const invoices = await h.app.ctx.db.selectFrom('invoices').select('id').where('workspace_id', '=', ws.workspaceId).execute();
        return invoices.length === 1;
      });
    },
  },
  '`POST /v1/subscriptions/{id}/cancel`': {
    before: async (w) => {
      const res = await w.h.as(w.ws.apiKey, {
        method: 'POST',
        url: '/v1/subscriptions',
        payload: { ...anInvoice(w.company.id), interval: 'month', scheduleStartDate: 4102444800 },
      });
      w.state.subscription = res.json().id;
    },
    run: ({ h, ws, state }) => call(h, ws.apiKey, 'POST', `/v1/subscriptions/${state.subscription}/cancel`),
  },
  '`POST /v1/message-channels`': {
    run: ({ h, ws, client }) => call(h, ws.apiKey, 'POST', '/v1/message-channels', { membershipType: 'individual', clientId: client.id }),
  },
  '`POST /v1/messages`': {
    before: async (w) => {
      const res = await w.h.as(w.ws.apiKey, {
        method: 'POST',
        url: '/v1/message-channels',
        payload: { membershipType: 'company', companyId: w.company.id },
      });
      w.state.channel = res.json().id;
    },
    run: ({ h, ws, client, state }) =>
      call(h, ws.apiKey, 'POST', '/v1/messages', { channelId: state.channel, text: 'Hello', senderId: client.id }),
  },
  '`DELETE /v1/message-channels/{id}` (with its messages)': {
    before: async (w) => {
      const res = await w.h.as(w.ws.apiKey, {
        method: 'POST',
        url: '/v1/message-channels',
        payload: { membershipType: 'company', companyId: w.company.id },
      });
      w.state.channel = res.json().id;
      const sent = await w.h.as(w.ws.apiKey, {
        method: 'POST',
        url: '/v1/messages',
        payload: { channelId: w.state.channel, text: 'Hello', senderId: w.client.id },
      });
      assert.equal(sent.statusCode, 200, sent.body);
    },
    run: ({ h, ws, state }) => call(h, ws.apiKey, 'DELETE', `/v1/message-channels/${state.channel}`),
  },
  '`POST /v1/tasks`': { run: ({ h, ws, client }) => call(h, ws.apiKey, 'POST', '/v1/tasks', { name: 'T', clientId: client.id }) },
  '`POST /v1/tasks` (status completed)': {
    run: ({ h, ws, company }) => call(h, ws.apiKey, 'POST', '/v1/tasks', { name: 'T', companyId: company.id, status: 'completed' }),
  },
  '`POST /v1/tasks` (from a template with one subtask template)': {
    before: async (w) => {
      const res = await adminRequest(w.h, 'POST', `/admin/workspaces/${w.ws.workspaceId}/task-templates`, {
        name: 'Onboarding',
        subTaskTemplates: [{ name: 'W-9' }],
      });
      w.state.template = res.json().id;
    },
    run: ({ h, ws, state }) => call(h, ws.apiKey, 'POST', '/v1/tasks', { templateId: state.template }),
  },
  '`PATCH /v1/tasks/{id}` (name)': {
    before: async (w) => {
      w.state.task = await taskOf(w);
    },
    run: ({ h, ws, state }) => call(h, ws.apiKey, 'PATCH', `/v1/tasks/${state.task}`, { name: 'Renamed' }),
  },
  '`PATCH /v1/tasks/{id}` (status becomes completed)': {
    before: async (w) => {
      w.state.task = await taskOf(w);
    },
    run: ({ h, ws, state }) => call(h, ws.apiKey, 'PATCH', `/v1/tasks/${state.task}`, { status: 'completed' }),
  },
  '`PATCH /v1/tasks/{id}` (isArchived becomes true)': {
    before: async (w) => {
      w.state.task = await taskOf(w);
    },
    run: ({ h, ws, state }) => call(h, ws.apiKey, 'PATCH', `/v1/tasks/${state.task}`, { isArchived: true }),
  },
  '`DELETE /v1/tasks/{id}` (with one subtask)': {
    before: async (w) => {
      w.state.task = await taskOf(w);
      await taskOf(w, w.state.task);
    },
    run: ({ h, ws, state }) => call(h, ws.apiKey, 'DELETE', `/v1/tasks/${state.task}`),
  },
  '`POST /v1/notes`': {
    run: ({ h, ws, client }) => call(h, ws.apiKey, 'POST', '/v1/notes', { entityType: 'client', entityId: client.id, title: 'N' }),
  },
  '`PATCH /v1/notes/{id}` (title or content)': {
    before: async (w) => {
      w.state.note = await noteOf(w);
    },
    run: ({ h, ws, state }) => call(h, ws.apiKey, 'PATCH', `/v1/notes/${state.note}`, { content: '<p>more</p>' }),
  },
  '`DELETE /v1/notes/{id}`': {
    before: async (w) => {
      w.state.note = await noteOf(w);
    },
    run: ({ h, ws, state }) => call(h, ws.apiKey, 'DELETE', `/v1/notes/${state.note}`),
  },
  '`POST /v1/files/{fileType}` (file)': {
    before: async (w) => {
      w.state.channel = await fileChannelOf(w);
    },
    run: ({ h, ws, state }) => call(h, ws.apiKey, 'POST', '/v1/files/file', { channelId: state.channel, path: 'a.txt' }),
  },
  '`POST /v1/files/{fileType}` (folder)': {
    before: async (w) => {
      w.state.channel = await fileChannelOf(w);
    },
    run: ({ h, ws, state }) => call(h, ws.apiKey, 'POST', '/v1/files/folder', { channelId: state.channel, path: 'F' }),
  },
  '`POST /v1/files/{fileType}` (link)': {
    before: async (w) => {
      w.state.channel = await fileChannelOf(w);
    },
    run: ({ h, ws, state }) =>
      call(h, ws.apiKey, 'POST', '/v1/files/link', { channelId: state.channel, path: 'L', linkUrl: 'https://example.com' }),
  },
  '`POST /v1/file`': {
    before: async (w) => {
      w.state.channel = await fileChannelOf(w);
    },
    run: ({ h, ws, state }) => call(h, ws.apiKey, 'POST', '/v1/file', { type: 'folder', channelID: state.channel, path: 'Old' }),
  },
  '`DELETE /v1/files/{id}` (file)': {
    before: async (w) => {
      w.state.file = await fileOf(w, 'file', { path: 'a.txt' });
    },
    run: ({ h, ws, state }) => call(h, ws.apiKey, 'DELETE', `/v1/files/${state.file}`),
  },
  '`DELETE /v1/files/{id}` (folder)': {
    before: async (w) => {
      w.state.file = await fileOf(w, 'folder', { path: 'F' });
    },
    run: ({ h, ws, state }) => call(h, ws.apiKey, 'DELETE', `/v1/files/${state.file}`),
  },
  '`DELETE /v1/files/{id}` (link)': {
    before: async (w) => {
      w.state.file = await fileOf(w, 'link', { path: 'L', linkUrl: 'https://example.com' });
    },
    run: ({ h, ws, state }) => call(h, ws.apiKey, 'DELETE', `/v1/files/${state.file}`),
  },
  '`PUT /v1/files/{id}/permissions/`': {
    before: async (w) => {
      w.state.file = await fileOf(w, 'folder', { path: 'F' });
    },
    run: ({ h, ws, state }) => call(h, ws.apiKey, 'PUT', `/v1/files/${state.file}/permissions/`, { clientPermissions: 'read_only' }),
  },
  '`GET /v1/files/{id}/download`': {
    before: async (w) => {
      w.state.file = await fileOf(w, 'file', { path: 'a.txt' }, 'content');
    },
    run: ({ h, ws, state }) => call(h, ws.apiKey, 'GET', `/v1/files/${state.file}/download`),
  },
  '`GET /v1/files/{id}/download-url`': {
    before: async (w) => {
      w.state.file = await fileOf(w, 'file', { path: 'a.txt' }, 'content');
    },
    run: ({ h, ws, state }) => call(h, ws.apiKey, 'GET', `/v1/files/${state.file}/download-url`),
  },
  '`PATCH /v1/files/{id}` (file)': {
    before: async (w) => {
      w.state.file = await fileOf(w, 'file', { path: 'a.txt' });
    },
    run: ({ h, ws, state }) => call(h, ws.apiKey, 'PATCH', `/v1/files/${state.file}`, { path: 'b.txt' }),
  },
  '`PATCH /v1/files/{id}` (folder)': {
    before: async (w) => {
      w.state.file = await fileOf(w, 'folder', { path: 'F' });
    },
    run: ({ h, ws, state }) => call(h, ws.apiKey, 'PATCH', `/v1/files/${state.file}`, { path: 'G' }),
  },
  '`PATCH /v1/files/{id}` (link)': {
    before: async (w) => {
      w.state.file = await fileOf(w, 'link', { path: 'L', linkUrl: 'https://example.com' });
    },
    run: ({ h, ws, state }) => call(h, ws.apiKey, 'PATCH', `/v1/files/${state.file}`, { linkUrl: 'https://example.org' }),
  },
  '`POST /v1/files/batch-delete`': {
    before: async (w) => {
      const channelId = await fileChannelOf(w);
      w.state.a = await fileOf(w, 'file', { channelId, path: 'a.txt' }, 'content');
      w.state.b = await fileOf(w, 'link', { channelId, path: 'L', linkUrl: 'https://example.com' });
    },
    run: ({ h, ws, state }) => call(h, ws.apiKey, 'POST', '/v1/files/batch-delete', { ids: [state.a, state.b] }),
  },
  '`GET /v1/files/archive`': {
    before: async (w) => {
      w.state.a = await fileOf(w, 'file', { path: 'a.txt' }, 'content');
    },
    run: ({ h, ws, state }) => call(h, ws.apiKey, 'GET', `/v1/files/archive?ids=${state.a}`),
  },
  '`POST /admin/workspaces/{id}/forms`': {
    run: ({ h, ws }) =>
      adminCall(h, `/admin/workspaces/${ws.workspaceId}/forms`, { name: 'F', formFields: [{ title: 'Q', type: 'shortAnswer' }] }),
  },
  '`PATCH /admin/workspaces/{id}/forms/{formId}` (fields)': {
    before: async (w) => {
      w.state.form = await formOf(w);
    },
    run: async ({ h, ws, state }) => {
      const res = await adminRequest(h, 'PATCH', `/admin/workspaces/${ws.workspaceId}/forms/${state.form}`, {
        formFields: [{ title: 'New question', type: 'longAnswer' }],
      });
      assert.equal(res.statusCode, 200, res.body);
    },
  },
  '`POST /v1/form-responses`': {
    before: async (w) => {
      w.state.form = await formOf(w);
    },
    run: ({ h, ws, client, state }) => call(h, ws.apiKey, 'POST', '/v1/form-responses', { formId: state.form, clientIds: [client.id] }),
  },
  '`POST /v1/form-responses` (two clients)': {
    before: async (w) => {
      w.state.form = await formOf(w);
      w.state.other = (
        await createClient(w.h, w.ws.apiKey, { email: 'two@audit.test', givenName: 'T', familyName: 'W', companyId: w.company.id })
      ).id;
    },
    run: ({ h, ws, client, company, state }) =>
      call(h, ws.apiKey, 'POST', '/v1/form-responses', {
        formId: state.form,
        clientCompanyIds: [
          { clientId: client.id, companyId: company.id },
          { clientId: state.other, companyId: company.id },
        ],
      }),
  },
  '`POST /v1/form-responses/{id}/complete` (by its client)': {
    before: async (w) => {
      const form = await formOf(w);
      const res = await w.h.as(w.ws.apiKey, {
        method: 'POST',
        url: '/v1/form-responses',
        payload: { formId: form, clientIds: [w.client.id] },
      });
      assert.equal(res.statusCode, 200, res.body);
      w.state.response = res.json().id;
      w.state.session = await clientSession(w);
    },
    run: ({ h, state }) => call(h, state.session, 'POST', `/v1/form-responses/${state.response}/complete`, { answers: {} }),
  },
  '`POST /v1/contracts`': {
    before: async (w) => {
      w.state.template = await contractTemplateOf(w);
    },
    run: ({ h, ws, client, state }) =>
      call(h, ws.apiKey, 'POST', '/v1/contracts', { contractTemplateId: state.template, clientId: client.id }),
  },
  '`POST /v1/contracts/{id}/sign` (by its client)': {
    before: async (w) => {
      const template = await contractTemplateOf(w);
      const res = await w.h.as(w.ws.apiKey, {
        method: 'POST',
        url: '/v1/contracts',
        payload: { contractTemplateId: template, clientId: w.client.id },
      });
      assert.equal(res.statusCode, 200, res.body);
      w.state.contract = res.json().id;
      w.state.session = await clientSession(w);
    },
    run: ({ h, state }) => call(h, state.session, 'POST', `/v1/contracts/${state.contract}/sign`, { values: { sig: 'Ada L' } }),
  },
  '`GET /v1/contracts/{id}/pdf` (a signed one)': {
    before: async (w) => {
      const template = await contractTemplateOf(w);
      const res = await w.h.as(w.ws.apiKey, {
        method: 'POST',
        url: '/v1/contracts',
        payload: { contractTemplateId: template, clientId: w.client.id },
      });
      assert.equal(res.statusCode, 200, res.body);
      w.state.contract = res.json().id;
      await call(w.h, await clientSession(w), 'POST', `/v1/contracts/${w.state.contract}/sign`, { values: { sig: 'Ada L' } });
    },
    run: ({ h, ws, state }) => call(h, ws.apiKey, 'GET', `/v1/contracts/${state.contract}/pdf`),
  },
  '`POST /admin/workspaces/{id}/qa/principals`': { run: (w) => qaCall(w, 'POST', '/principals', { clientId: w.client.id }) },
  '`DELETE /admin/workspaces/{id}/qa/principals/{principalId}`': {
    before: (w) => qaCall(w, 'POST', '/principals', { clientId: w.client.id }),
    run: (w) => qaCall(w, 'DELETE', `/principals/${w.client.id}`),
  },
  '`POST /admin/workspaces/{id}/qa/principals/{principalId}/tokens`': {
    before: (w) => qaCall(w, 'POST', '/principals', { clientId: w.client.id }),
    run: (w) => qaCall(w, 'POST', `/principals/${w.client.id}/tokens`, { apiKey: w.app.apiKey }),
  },
  '`POST /admin/workspaces/{id}/sessions` (`portal sessions create`)': {
    run: ({ h, ws, app, client }) =>
      adminRequest(h, 'POST', `/admin/workspaces/${ws.workspaceId}/sessions`, { apiKey: app.apiKey, clientId: client.id }),
  },
  '`POST /admin/workspaces/{id}/sessions` (`portal sessions create`) for a QA principal': {
    before: (w) => qaCall(w, 'POST', '/principals', { clientId: w.client.id }),
    run: ({ h, ws, app, client }) =>
      adminRequest(h, 'POST', `/admin/workspaces/${ws.workspaceId}/sessions`, { apiKey: app.apiKey, clientId: client.id }),
  },
  '`POST /admin/workspaces/{id}/qa/agent-tokens`': { run: (w) => qaCall(w, 'POST', '/agent-tokens', { apiKeyId: w.app.apiKeyId }) },
  '`PUT /v1/app-api-resources/{name}` (a new name)': {
    run: ({ h, app }) => call(h, app.apiKey, 'PUT', '/v1/app-api-resources/orders', { methods: ['GET'] }),
  },
  '`PUT /v1/app-api-resources/{name}` (a declared name, changed)': {
    before: ({ h, app }) => call(h, app.apiKey, 'PUT', '/v1/app-api-resources/orders', { methods: ['GET'] }),
    run: ({ h, app }) => call(h, app.apiKey, 'PUT', '/v1/app-api-resources/orders', { methods: ['POST'] }),
  },
  '`DELETE /v1/app-api-resources/{name}`': {
    before: ({ h, app }) => call(h, app.apiKey, 'PUT', '/v1/app-api-resources/orders', { methods: ['GET'] }),
    run: ({ h, app }) => call(h, app.apiKey, 'DELETE', '/v1/app-api-resources/orders'),
  },
  '`POST /v1/app-builder-secret`': { run: ({ h, app }) => call(h, app.apiKey, 'POST', '/v1/app-builder-secret') },
};

/** A call on the workspace's QA surface (admin), which must succeed. */
async function qaCall(w: World, method: 'POST' | 'DELETE', path: string, payload?: object): Promise<void> {
  const res = await adminRequest(w.h, method, `/admin/workspaces/${w.ws.workspaceId}/qa${path}`, payload);
  assert.ok(res.statusCode < 300, `${method} ${path}: ${res.statusCode} ${res.body}`);
}

/** The world's client's file channel: its id. */
async function fileChannelOf(w: World): Promise<string> {
  const payload = { membershipType: 'individual', clientId: w.client.id };
  const res = await w.h.as(w.ws.apiKey, { method: 'POST', url: '/v1/channels/files', payload });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().id;
}

/** A file, folder or link in a new channel of the world's client (a file's content uploaded when given): its id. */
async function fileOf(w: World, type: string, body: object, content?: string): Promise<string> {
  const payload = { channelId: await fileChannelOf(w), ...body };
  const res = await w.h.as(w.ws.apiKey, { method: 'POST', url: `/v1/files/${type}`, payload });
  assert.equal(res.statusCode, 200, res.body);
  if (content !== undefined) {
    const url = new URL(res.json().uploadUrl);
    const put = await w.h.app.inject({ method: 'PUT', url: `${url.pathname}${url.search}`, payload: content });
    assert.equal(put.statusCode, 200, put.body);
  }
  return res.json().id;
}

/** A task of the world's company (a subtask of `parentTaskId` when given): its id. */
async function taskOf(w: World, parentTaskId?: string): Promise<string> {
  const payload = { name: 'Task', companyId: w.company.id, ...(parentTaskId ? { parentTaskId } : {}) };
  const res = await w.h.as(w.ws.apiKey, { method: 'POST', url: '/v1/tasks', payload });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().id;
}

/** A form of one optional field, made on the admin surface: its id. */
async function formOf(w: World): Promise<string> {
  const res = await adminRequest(w.h, 'POST', `/admin/workspaces/${w.ws.workspaceId}/forms`, {
    name: 'Form',
    formFields: [{ title: 'Q', type: 'shortAnswer' }],
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().id;
}

/** A contract template with one signature the client fills: its id. */
async function contractTemplateOf(w: World): Promise<string> {
  const res = await adminRequest(w.h, 'POST', `/admin/workspaces/${w.ws.workspaceId}/contract-templates`, {
    name: 'NDA',
    fields: [{ id: 'sig', type: 'signature', inputType: 'client' }],
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().id;
}

/** The world's client's session (the app key acting for it). */
const clientSession = (w: World) => sessionKeyFor(w.h, w.ws.workspaceId, { apiKey: w.app.apiKey, clientId: w.client.id });

/** A note on the world's company: its id. */
async function noteOf(w: World): Promise<string> {
  const payload = { entityType: 'company', entityId: w.company.id, title: 'Note' };
  const res = await w.h.as(w.ws.apiKey, { method: 'POST', url: '/v1/notes', payload });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().id;
}

async function call(h: Harness, key: string, method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE', url: string, payload?: object) {
  const res = await h.as(key, { method, url, ...(payload ? { payload } : {}) });
  assert.ok(res.statusCode < 300, `${method} ${url}: ${res.statusCode} ${res.body}`);
}

async function entryIds(h: Harness, workspaceId: string) {
  return h.app.ctx.db.selectFrom('audit_log').select(['id', 'event_type']).where('workspace_id', '=', workspaceId).execute();
}

describe('the table of audit events in docs/api.md', () => {
  test('every operation of the table is known to this test, and every one this test knows is in the table', () => {
    assert.ok(TABLE.length >= 15, `the table has its rows (${TABLE.length})`);
    assert.deepEqual(TABLE.map(([operation]) => operation).sort(), Object.keys(OPERATIONS).sort());
  });

  test('every event type of the specification is emitted by an operation of the table or listed as not emitted', () => {
    const emitted = new Set(TABLE.flatMap(([, events]) => events));
    for (const type of AUDIT_EVENT_TYPES) {
      assert.ok(emitted.has(type) !== NOT_EMITTED.includes(type), `${type}: in exactly one of the two lists`);
    }
    for (const type of [...emitted, ...NOT_EMITTED])
      assert.ok((AUDIT_EVENT_TYPES as readonly string[]).includes(type), `${type} is a type of the specification`);
  });

  for (const backend of BACKENDS) {
    // One server per backend for every operation, each in a workspace of its own (what it records is its workspace's).
    test(`[${backend}] each operation records its events`, async (t) => {
      const h = await adminHarness(t, backend, { webhooks: false, subscriptionPollMs: 3_600_000 });
      for (const [operation, events] of TABLE) {
        await t.test(`${operation} records ${events.join(', ')}`, async () => {
          const w: World = { ...(await populatedWorkspace(h)), h, state: {} };
          const step = OPERATIONS[operation];
          await step.before?.(w);
          const before = new Set((await entryIds(h, w.ws.workspaceId)).map((e) => e.id));
          await step.run(w);
          const recorded = (await entryIds(h, w.ws.workspaceId)).filter((e) => !before.has(e.id)).map((e) => e.event_type);
          assert.deepEqual(recorded.sort(), [...events].sort());
        });
      }
    });
  }
});
