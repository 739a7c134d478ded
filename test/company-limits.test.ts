// Security issue 20, points 2–4: an internal user limited to some companies, or any end-user session, stays
// inside what it may see and may not act as someone else.
// - Point 2: a connection for a client or company outside the limited user's companies answers exactly as one
//   for an id that does not exist (nothing created, and nothing learned of whether it exists).
// - Point 3: GET /v1/payments lists only payments of invoices the limited user sees.
// - Point 4: an internal user's session changes only its own notification preferences, and records audit
//   events only as its own user (client sessions cannot reach either route).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { APP_ID, addClientCompany, adminRequest, createClient, createTestInternalUser, sessionKeyFor } from './helpers/factories.js';
import { BACKENDS, type Backend, adminHarness } from './helpers/harness.js';
import { principalWorld } from './helpers/principal-world.js';

async function setUp(t: Parameters<typeof adminHarness>[0], backend: Backend) {
  const h = await adminHarness(t, backend);
  const w = await principalWorld(h);
  // The limited staff member sees "Elsewhere" (and its client); "Company" and its client are outside its access.
  const seen = await createClient(h, w.ws.apiKey, {
    email: 'seen@walk.test',
    givenName: 'Se',
    familyName: 'En',
    companyId: w.elsewhere.id,
  });
  return { h, w, seen };
}

for (const backend of BACKENDS) {
  describe(`limited internal users and sessions stay in their bounds [${backend}]`, () => {
    test('point 2: a connection for an invisible client or company is refused exactly as for one that does not exist', async (t) => {
      const { h, w, seen } = await setUp(t, backend);
      const manual = (
        await adminRequest(h, 'POST', `/admin/workspaces/${w.ws.workspaceId}/installs`, { type: 'manual', name: 'Docs' })
      ).json().id as string;
      const post = (body: object) =>
        w.call('limited staff session', {
          method: 'POST',
          url: `/v1/installs/${manual}/connections`,
          payload: { type: 'embed', content: '<iframe></iframe>', ...body },
        });
      const hiddenClient = await post({ clientIds: [w.client.id] });
      const absentClient = await post({ clientIds: [randomUUID()] });
      assert.equal(hiddenClient.statusCode, 400);
      assert.deepEqual(hiddenClient.json(), absentClient.json(), 'a client outside its companies looks absent');
      assert.deepEqual(hiddenClient.json().data, [{ path: 'body.clientIds.0', message: 'is not a client of this workspace' }]);
      const hiddenCompany = await post({ companyId: w.company.id });
      const absentCompany = await post({ companyId: randomUUID() });
      assert.equal(hiddenCompany.statusCode, 400);
      assert.deepEqual(hiddenCompany.json(), absentCompany.json(), 'a company outside its companies looks absent');
      // Its own company's client is fine, and the list holds only that connection.
      const own = await post({ clientIds: [seen.id] });
      assert.equal(own.statusCode, 200, own.body);
      assert.equal(own.json().companyId, w.elsewhere.id);
      const byAdmin = await w.call('workspace key', {
        method: 'POST',
        url: `/v1/installs/${manual}/connections`,
        payload: { type: 'embed', content: '<iframe></iframe>', clientIds: [w.client.id] },
      });
      assert.equal(byAdmin.statusCode, 200, byAdmin.body);
      const listed = await w.call('limited staff session', { method: 'GET', url: `/v1/installs/${manual}/connections` });
      assert.deepEqual(
        listed.json().data.map((c: { id: string }) => c.id),
        [own.json().id],
      );
      const filtered = await w.call('limited staff session', {
        method: 'GET',
        url: `/v1/installs/${manual}/connections?clientId=${w.client.id}`,
      });
      assert.deepEqual(filtered.json().data, []);
    });

    test('point 3: GET /v1/payments lists only payments of invoices the limited user sees, with or without invoiceId', async (t) => {
      const { h, w, seen } = await setUp(t, backend);
      const paidInvoice = async (clientId: string) => {
        const invoice = await w.call('workspace key', {
          method: 'POST',
          url: '/v1/invoices',
          payload: { clientId, daysUntilDue: 30, lineItems: [{ amount: 1000, quantity: 1 }] },
        });
        assert.equal(invoice.statusCode, 200, invoice.body);
        const id = invoice.json().id as string;
        const paid = await adminRequest(h, 'POST', `/admin/workspaces/${w.ws.workspaceId}/invoices/${id}/pay`, {});
        assert.equal(paid.statusCode, 200, paid.body);
        return id;
      };
      const hidden = await paidInvoice(w.client.id);
      const visible = await paidInvoice(seen.id);
      const payments = (principal: 'limited staff session' | 'workspace key', query = '') =>
        w.call(principal, { method: 'GET', url: `/v1/payments${query}` });
      const all = await payments('workspace key');
      assert.equal(all.json().data.length, 2);
      const limited = await payments('limited staff session');
      assert.equal(limited.statusCode, 200);
      assert.deepEqual(
        limited.json().data.map((p: { invoiceId: string }) => p.invoiceId),
        [visible],
      );
      assert.deepEqual((await payments('limited staff session', `?invoiceId=${hidden}`)).json(), { data: [] });
      assert.equal((await w.call('limited staff session', { method: 'GET', url: `/v1/invoices/${hidden}` })).statusCode, 404);
    });

    test("point 4: a session changes only its own user's preferences and records events only as its own user", async (t) => {
      const { h, w } = await setUp(t, backend);
      const install = (
        await adminRequest(h, 'POST', `/admin/workspaces/${w.ws.workspaceId}/installs`, { type: 'custom', name: 'App', appId: APP_ID })
      ).json().id as string;
      const declared = await w.call('app key', {
        method: 'POST',
        url: `/v1/installs/${install}/notification-settings`,
        payload: { notifications: [{ id: 's1', label: 'Updates', surfaces: ['email'] }] },
      });
      assert.equal(declared.statusCode, 200, declared.body);
      const patch = (userId: string) =>
        w.call('limited staff session', {
          method: 'PATCH',
          url: `/v1/internal-users/${userId}/notification-preferences`,
          payload: { installId: install, notificationSettingId: 's1', email: false },
        });
      const others = await patch(w.admin.id);
      assert.equal(others.statusCode, 403);
      assert.deepEqual(others.json(), {
        code: 'forbidden',
        message: 'An internal user may change only its own notification preferences.',
        data: null,
      });
      assert.equal((await patch(w.limited.id)).statusCode, 200, 'its own');
      const adminPrefs = await w.call('workspace key', { method: 'GET', url: `/v1/internal-users/${w.admin.id}/notification-preferences` });
      assert.equal(adminPrefs.json().data[0].isDefault, true, "the admin's preferences were not changed");

      const record = (body: object) =>
        w.call('limited staff session', {
          method: 'POST',
          url: '/v1/audit-logs',
          payload: { eventType: 'sessionStarted', eventDescription: 'signed in', context: {}, ...body },
        });
      const asAdmin = await record({ actorId: w.admin.id });
      assert.equal(asAdmin.statusCode, 403);
      assert.deepEqual(asAdmin.json(), {
        code: 'forbidden',
        message: 'body.actorId must be the caller’s own user (or left out): a person acts only as itself.',
        data: null,
      });
      const itself = await record({});
      assert.equal(itself.statusCode, 200, itself.body);
      assert.deepEqual([itself.json().actorId, itself.json().actorType], [w.limited.id, 'internalUser']);
      const named = await record({ actorId: w.limited.id });
      assert.equal(named.statusCode, 200, 'naming its own user is fine');
      const byKey = await w.call('app key', {
        method: 'POST',
        url: '/v1/audit-logs',
        payload: { eventType: 'sessionStarted', eventDescription: 'reported by the app', context: {}, actorId: w.admin.id },
      });
      assert.deepEqual([byKey.statusCode, byKey.json().actorId], [200, w.admin.id], 'an app key reports any user');
    });

    test('issue 29 point 4: a limited admin may not delete a client that also belongs to a company it cannot see', async (t) => {
      const { h, w, seen } = await setUp(t, backend);
      const user = await createTestInternalUser(h, w.ws.workspaceId, {
        email: 'limited-admin@walk.test',
        givenName: 'Lim',
        familyName: 'Admin',
        role: 'admin',
        companyAccessList: [w.elsewhere.id],
      });
      const app = await h.appKey(w.ws.workspaceId, APP_ID);
      const session = await sessionKeyFor(h, w.ws.workspaceId, { apiKey: app.apiKey, internalUserId: user.id });
      // The client is in "Elsewhere" (seen) and in "Company" (not seen), with a message channel filed under "Company".
      await addClientCompany(h, w.ws.workspaceId, seen, w.company.id);
      const channel = await h.as(w.ws.apiKey, {
        method: 'POST',
        url: '/v1/message-channels',
        payload: { membershipType: 'individual', clientId: seen.id, companyId: w.company.id },
      });
      assert.equal(channel.statusCode, 200, channel.body);
      const refused = await h.as(session, { method: 'DELETE', url: `/v1/clients/${seen.id}` });
      assert.equal(refused.statusCode, 403);
      assert.deepEqual(refused.json(), {
        code: 'forbidden',
        message: 'This client also belongs to a company you cannot see: deleting it would delete what it has there; nothing was deleted.',
        data: null,
      });
      const still = await h.as(w.ws.apiKey, { method: 'GET', url: `/v1/message-channels/${channel.json().id}` });
      assert.equal(still.statusCode, 200, 'the channel under the unseen company is still there');
      // A client of its companies only is its to delete.
      const own = await createClient(h, w.ws.apiKey, {
        email: 'own@walk.test',
        givenName: 'O',
        familyName: 'Wn',
        companyId: w.elsewhere.id,
      });
      const deleted = await h.as(session, { method: 'DELETE', url: `/v1/clients/${own.id}` });
      assert.deepEqual([deleted.statusCode, deleted.json()], [200, { id: own.id, object: 'client', deleted: true }]);
    });
  });
}
