import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  APP_ID,
  OTHER_APP_ID,
  adminRequest,
  createClient,
  createCompany,
  createTestInternalUser,
  populatedWorkspace,
  sessionKeyFor,
} from '../../../test/helpers/factories.js';
import { BACKENDS, type Harness, NOON, adminHarness } from '../../../test/helpers/harness.js';

const AT = new Date(NOON).toISOString();
const UNKNOWN = '3f1c2b4a-5d6e-4f70-8a9b-0c1d2e3f4a5b';

/** A populated workspace and a POST/GET helper for its workspace key. */
async function setting(h: Harness) {
  const w = await populatedWorkspace(h);
  const send = (payload: object, key = w.ws.apiKey) => h.as(key, { method: 'POST', url: '/v1/notifications', payload });
  const get = (url: string, key = w.ws.apiKey) => h.as(key, { method: 'GET', url });
  const outbox = async () => (await adminRequest(h, 'GET', `/admin/workspaces/${w.ws.workspaceId}/outbox`)).json().data;
  return { ...w, send, get, outbox };
}

/** Installs an app (custom, APP_ID by default) with notification settings; its id. */
async function installWithSettings(h: Harness, workspaceId: string, apiKey: string, notifications: object[], appId = APP_ID) {
  const install = await adminRequest(h, 'POST', `/admin/workspaces/${workspaceId}/installs`, { type: 'custom', name: 'App', appId });
  assert.equal(install.statusCode, 200, install.body);
  const id = install.json().id as string;
  const declared = await h.as(apiKey, { method: 'POST', url: `/v1/installs/${id}/notification-settings`, payload: { notifications } });
  assert.equal(declared.statusCode, 200, declared.body);
  return id;
}

/** 400 with exactly these problems. */
function assertProblems(res: { statusCode: number; body: string; json(): any }, data: { path: string; message: string }[]) {
  assert.equal(res.statusCode, 400, res.body);
  assert.deepEqual(res.json().data, data, res.body);
}

for (const backend of BACKENDS) {
  describe(`notifications (contract §3) [${backend}]`, () => {
    test('create to a client, in product and by e-mail: the SDK shape; listed unread; read, unread, delete', async (t) => {
      const h = await adminHarness(t, backend);
      const { user, client, company, send, get, outbox, ws } = await setting(h);
      const created = await send({
        senderId: user.id,
        recipientClientId: client.id,
        deliveryTargets: {
          inProduct: { title: 'Invoice ready', body: 'Your invoice is ready.', ctaParams: { invoice: '42' } },
          email: { subject: 'Your invoice', header: 'Hello Ada', body: 'It is ready.', title: 'See it', ctaParams: 'invoice=42&tab=pay' },
        },
      });
      assert.equal(created.statusCode, 200, created.body);
      const notification = created.json();
      assert.match(notification.id, /^[0-9a-f-]{36}$/);
      const expected = {
        id: notification.id,
        object: 'notification',
        appId: '',
        createdAt: AT,
        updatedAt: AT,
        senderId: user.id,
        senderType: 'internalUser',
        recipientClientId: client.id,
        recipientCompanyId: company.id,
        deliveryTargets: {
          inProduct: { title: 'Invoice ready', body: 'Your invoice is ready.', isRead: false, ctaParams: { invoice: '42' } },
          email: { subject: 'Your invoice', header: 'Hello Ada', body: 'It is ready.', title: 'See it', ctaParams: { invoice: '42', tab: 'pay' } },
        },
      };
      assert.deepEqual(notification, expected);
      assert.deepEqual((await get('/v1/notifications')).json(), { data: [expected] }, 'listed: unread');

      h.clock.advance(1000);
      const later = new Date(NOON + 1000).toISOString();
      const read = await h.as(ws.apiKey, { method: 'POST', url: `/v1/notifications/${notification.id}/read` });
      assert.equal(read.statusCode, 200, read.body);
      const readOne = { ...expected, updatedAt: later, deliveryTargets: { ...expected.deliveryTargets, inProduct: { ...expected.deliveryTargets.inProduct, isRead: true } } };
      assert.deepEqual(read.json(), readOne);
      assert.deepEqual((await get('/v1/notifications')).json(), { data: [] }, 'includeRead defaults to false');
      assert.deepEqual((await get('/v1/notifications?includeRead=true')).json(), { data: [readOne] });
      const unread = await h.as(ws.apiKey, { method: 'POST', url: `/v1/notifications/${notification.id}/unread` });
      assert.deepEqual(unread.json(), { ...expected, updatedAt: later });

      const emails = await outbox();
      assert.equal(emails.length, 1, 'one e-mail queued with the notification');
      assert.deepEqual(
        { ...emails[0], id: undefined },
        {
          id: undefined,
          notificationId: notification.id,
          to: client.email,
          subject: 'Your invoice',
          status: 'queued',
          attempts: 0,
          nextAttemptAt: AT,
          lastError: null,
          createdAt: AT,
          sentAt: null,
        },
      );

      const deleted = await h.as(ws.apiKey, { method: 'DELETE', url: `/v1/notifications/${notification.id}` });
      assert.equal(deleted.statusCode, 200, deleted.body);
      assert.deepEqual(deleted.json(), { id: notification.id, object: 'notification', deleted: true });
      assert.equal((await h.as(ws.apiKey, { method: 'POST', url: `/v1/notifications/${notification.id}/read` })).statusCode, 404);
      assert.equal((await h.as(ws.apiKey, { method: 'DELETE', url: `/v1/notifications/${notification.id}` })).statusCode, 404);
      assert.deepEqual((await get('/v1/notifications?includeRead=true')).json(), { data: [] });
      assert.equal((await outbox()).length, 1, 'its e-mail stays queued: deleting from the notification center unsends nothing');
    });
  });
}
