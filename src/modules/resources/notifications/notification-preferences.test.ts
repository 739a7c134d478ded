import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { APP_ID, adminRequest, createTestInternalUser, populatedWorkspace, sessionKeyFor } from '../../../../test/helpers/factories.js';
import { BACKENDS, adminHarness } from '../../../../test/helpers/harness.js';

for (const backend of BACKENDS) {
  describe(`internal users' notification preferences (contract §3) [${backend}]`, () => {
    test('every declared setting, its default until set; PATCH sets the surfaces given; rules and principals', async (t) => {
      const h = await adminHarness(t, backend);
      const { ws, app, user, client } = await populatedWorkspace(h);
      const install = (
        await adminRequest(h, 'POST', `/admin/workspaces/${ws.workspaceId}/installs`, { type: 'custom', name: 'App', appId: APP_ID })
      ).json().id;
      const declared = await h.as(ws.apiKey, {
        method: 'POST',
        url: `/v1/installs/${install}/notification-settings`,
        payload: {
          notifications: [
            { id: 's1', label: 'One', surfaces: ['product', 'email'], default: { email: true } },
            { id: 's2', label: 'Two', surfaces: ['email'] },
          ],
        },
      });
      assert.equal(declared.statusCode, 200, declared.body);
      const url = `/v1/internal-users/${user.id}/notification-preferences`;
      const get = (key: string, at = url) => h.as(key, { method: 'GET', url: at });
      const patch = (key: string, payload: object) => h.as(key, { method: 'PATCH', url, payload });
      assert.deepEqual((await get(ws.apiKey)).json(), {
        data: [
          { installId: install, notificationSettingId: 's1', email: true, product: false, isDefault: true },
          { installId: install, notificationSettingId: 's2', email: false, product: false, isDefault: true },
        ],
      });
      const set = await patch(ws.apiKey, { installId: install, notificationSettingId: 's1', product: true });
      assert.equal(set.statusCode, 200, set.body);
      assert.deepEqual(
        set.json().data[0],
        { installId: install, notificationSettingId: 's1', email: true, product: true, isDefault: false },
        'email still follows the default',
      );
      const off = await patch(ws.apiKey, { installId: install, notificationSettingId: 's1', email: false });
      assert.deepEqual(
        off.json().data[0],
        { installId: install, notificationSettingId: 's1', email: false, product: true, isDefault: false },
        'product kept',
      );
      assert.deepEqual((await get(ws.apiKey)).json(), off.json(), 'GET answers the same');

      const problems = async (payload: object) => {
        const res = await patch(ws.apiKey, payload);
        assert.equal(res.statusCode, 400, res.body);
        return res.json().data;
      };
      assert.deepEqual(await problems({ installId: install, notificationSettingId: 's2', product: true }), [
        { path: 'body.product', message: 'is not a surface of this setting (email)' },
      ]);
      assert.deepEqual(await problems({ installId: install, notificationSettingId: 'nope' }), [
        { path: 'body.notificationSettingId', message: 'is not a notification setting of this install' },
      ]);
      assert.deepEqual(await problems({ installId: 'nope', notificationSettingId: 's1' }), [
        { path: 'body.installId', message: 'is not an install of this workspace with notification settings' },
      ]);

      const other = await createTestInternalUser(h, ws.workspaceId, { email: 'o@acme.test', givenName: 'O', familyName: 'T' });
      const samSession = await sessionKeyFor(h, ws.workspaceId, { apiKey: app.apiKey, internalUserId: user.id });
      assert.equal((await get(samSession)).statusCode, 200, 'its own');
      const colleague = await get(samSession, `/v1/internal-users/${other.id}/notification-preferences`);
      assert.equal(colleague.statusCode, 200, "staff see a colleague's too (the route's policy)");
      const clientSession = await sessionKeyFor(h, ws.workspaceId, { apiKey: app.apiKey, clientId: client.id });
      assert.equal((await get(clientSession)).statusCode, 404);
      assert.equal((await get(app.apiKey)).statusCode, 200, 'an app key reads any user');
      const elsewhere = await h.workspace('Other');
      assert.equal((await get(elsewhere.apiKey)).statusCode, 404, 'another workspace');
      assert.equal(
        (await get(ws.apiKey, '/v1/internal-users/3f1c2b4a-5d6e-4f70-8a9b-0c1d2e3f4a5b/notification-preferences')).statusCode,
        404,
      );
    });
  });
}
