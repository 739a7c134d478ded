import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { APP_ID, OTHER_APP_ID, adminRequest, populatedWorkspace, sessionKeyFor } from '../../../../test/helpers/factories.js';
import { BACKENDS, type Harness, adminHarness } from '../../../../test/helpers/harness.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** A custom install of APP_ID, and the calls on its settings. */
async function setup(h: Harness) {
  const w = await populatedWorkspace(h);
  const install = (
    await adminRequest(h, 'POST', `/admin/workspaces/${w.ws.workspaceId}/installs`, { type: 'custom', name: 'App', appId: APP_ID })
  ).json().id;
  const url = `/v1/installs/${install}/notification-settings`;
  const as = (key: string, method: 'GET' | 'POST' | 'PATCH', payload?: object) =>
    h.as(key, { method, url, ...(payload ? { payload } : {}) });
  return { ...w, install, url, as };
}

const setting = (label: string, extra: object = {}) => ({ label, surfaces: ['product'], ...extra });

for (const backend of BACKENDS) {
  describe(`install notification settings [${backend}]`, () => {
    test('declared once (409 after), ids generated when omitted, defaults with every surface stated', async (t) => {
      const h = await adminHarness(t, backend);
      const { ws, as } = await setup(h);
      assert.deepEqual((await as(ws.apiKey, 'GET')).json(), { object: 'notificationSettings', notifications: [] });
      const declared = await as(ws.apiKey, 'POST', {
        notifications: [
          { id: 'new-message', label: 'New message', surfaces: ['product', 'email'], default: { email: true } },
          { label: 'Reminder', surfaces: ['email'] },
        ],
        actionLabel: { verb: 'Review', singularNoun: 'message', pluralNoun: 'messages' },
      });
      assert.equal(declared.statusCode, 200, declared.body);
      const body = declared.json();
      assert.match(body.notifications[1].id, UUID);
      assert.deepEqual(body, {
        object: 'notificationSettings',
        actionLabel: { verb: 'Review', singularNoun: 'message', pluralNoun: 'messages' },
        notifications: [
          { id: 'new-message', label: 'New message', surfaces: ['product', 'email'], default: { email: true, product: false } },
          { id: body.notifications[1].id, label: 'Reminder', surfaces: ['email'], default: { email: false, product: false } },
        ],
      });
      assert.deepEqual((await as(ws.apiKey, 'GET')).json(), body);
      const again = await as(ws.apiKey, 'POST', { notifications: [setting('X')] });
      assert.deepEqual([again.statusCode, again.json().code], [409, 'conflict']);
    });

    test('limits: 1–50 settings, labels up to 100 characters, at least one surface of product and email, unique ids', async (t) => {
      const h = await adminHarness(t, backend);
      const { ws, as } = await setup(h);
      const paths = async (payload: object) => {
        const res = await as(ws.apiKey, 'POST', payload);
        assert.equal(res.statusCode, 400, res.body);
        return res.json().data.map((p: { path: string }) => p.path);
      };
      assert.deepEqual(await paths({ notifications: [] }), ['body.notifications']);
      assert.deepEqual(await paths({ notifications: Array.from({ length: 51 }, (_, i) => setting(`S${i}`)) }), ['body.notifications']);
      assert.deepEqual(await paths({ notifications: [setting('x'.repeat(101))] }), ['body.notifications.0.label']);
      assert.deepEqual(await paths({ notifications: [{ label: 'A', surfaces: [] }] }), ['body.notifications.0.surfaces']);
      assert.ok((await paths({ notifications: [{ label: 'A', surfaces: ['sms'] }] }))[0].startsWith('body.notifications.0.surfaces'));
      assert.deepEqual(await paths({ notifications: [setting('A', { id: 'a' }), setting('B', { id: 'a' })] }), ['body.notifications.1.id']);
      const fifty = await as(ws.apiKey, 'POST', {
        notifications: Array.from({ length: 50 }, (_, i) => setting(i === 0 ? 'x'.repeat(100) : `S${i}`)),
      });
      assert.equal(fifty.statusCode, 200, '50 settings and a 100-character label are fine');
    });

    test('PATCH deltas: add, delete, replace given fields; actionLabel {} clears, omitted stays; each bad delta named', async (t) => {
      const h = await adminHarness(t, backend);
      const { ws, as } = await setup(h);
      assert.equal((await as(ws.apiKey, 'PATCH', { notifications: [] })).statusCode, 404, 'nothing declared yet');
      await as(ws.apiKey, 'POST', {
        notifications: [setting('A', { id: 'a' }), setting('B', { id: 'b' })],
        actionLabel: { verb: 'Do', singularNoun: 'thing', pluralNoun: 'things' },
      });
      const changed = await as(ws.apiKey, 'PATCH', {
        notifications: [{ id: 'a' }, { id: 'b', label: 'B2', default: { product: true } }, { label: 'C', surfaces: ['email'] }],
      });
      assert.equal(changed.statusCode, 200, changed.body);
      const body = changed.json();
      assert.deepEqual(body.actionLabel, { verb: 'Do', singularNoun: 'thing', pluralNoun: 'things' }, 'omitted: unchanged');
      assert.deepEqual(
        body.notifications.map((s: { id: string; label: string; surfaces: string[]; default: object }) => [s.label, s.surfaces, s.default]),
        [
          ['B2', ['product'], { email: false, product: true }],
          ['C', ['email'], { email: false, product: false }],
        ],
      );
      assert.equal(body.notifications[0].id, 'b');
      const cleared = await as(ws.apiKey, 'PATCH', { actionLabel: {} });
      assert.equal(cleared.json().actionLabel, undefined, '{} clears it');
      const bad = await as(ws.apiKey, 'PATCH', { notifications: [{ label: 'no surfaces' }, { id: 'nope' }, { surfaces: ['email'] }] });
      assert.equal(bad.statusCode, 400);
      assert.deepEqual(bad.json().data, [
        { path: 'body.notifications.0.surfaces', message: 'is required to add a setting' },
        { path: 'body.notifications.1.id', message: 'is not a notification setting of this install' },
        { path: 'body.notifications.2.label', message: 'is required to add a setting' },
      ]);
      // Boundaries: 0 and 50 deltas pass (50 edits of one setting, to a 100-character label); 51 deltas and 101 characters do not.
      const none = await as(ws.apiKey, 'PATCH', { notifications: [] });
      assert.deepEqual([none.statusCode, none.json().notifications.length], [200, 2], 'no delta: unchanged');
      const fiftyDeltas = await as(ws.apiKey, 'PATCH', {
        notifications: Array.from({ length: 50 }, (_, i) => ({ id: 'b', label: i === 49 ? 'x'.repeat(100) : `B${i}` })),
      });
      assert.equal(fiftyDeltas.statusCode, 200, fiftyDeltas.body);
      assert.equal(fiftyDeltas.json().notifications[0].label, 'x'.repeat(100), 'applied in order');
      const longLabel = await as(ws.apiKey, 'PATCH', { notifications: [{ id: 'b', label: 'x'.repeat(101) }] });
      assert.deepEqual(
        longLabel.json().data.map((p: { path: string }) => p.path),
        ['body.notifications.0.label'],
      );
      const tooMany = await as(ws.apiKey, 'PATCH', { notifications: Array.from({ length: 51 }, () => setting('X')) });
      assert.deepEqual(
        tooMany.json().data.map((p: { path: string }) => p.path),
        ['body.notifications'],
        'at most 50 deltas',
      );
      const overflow = await as(ws.apiKey, 'PATCH', { notifications: Array.from({ length: 49 }, () => setting('X')) });
      assert.deepEqual(
        [overflow.statusCode, overflow.json().data],
        [400, [{ path: 'body.notifications', message: 'would leave more than 50 settings' }]],
      );
    });

    test('an app key changes only its own app’s installs; a workspace key any; clients and other workspaces do not see them', async (t) => {
      const h = await adminHarness(t, backend);
      const { ws, app, client, as } = await setup(h);
      const otherApp = await h.appKey(ws.workspaceId, OTHER_APP_ID);
      const declare = { notifications: [setting('A')] };
      const refused = await as(otherApp.apiKey, 'POST', declare);
      assert.deepEqual(
        [refused.statusCode, refused.json().message],
        [403, 'An app may change only the notification settings of its own installs.'],
      );
      assert.equal((await as(app.apiKey, 'POST', declare)).statusCode, 200, 'its own app');
      assert.equal((await as(otherApp.apiKey, 'PATCH', { actionLabel: {} })).statusCode, 403);
      assert.equal((await as(otherApp.apiKey, 'GET')).statusCode, 200, 'reading is open to every app');
      assert.equal((await as(ws.apiKey, 'PATCH', { actionLabel: {} })).statusCode, 200, 'a workspace key changes any');
      const clientKey = await sessionKeyFor(h, ws.workspaceId, { apiKey: app.apiKey, clientId: client.id });
      assert.equal((await as(clientKey, 'GET')).statusCode, 404, 'not for clients');
      const other = await h.workspace('Other');
      assert.equal((await as(other.apiKey, 'GET')).statusCode, 404, 'another workspace');
    });
  });
}
