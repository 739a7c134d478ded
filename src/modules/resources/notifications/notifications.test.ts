import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  APP_ID,
  addClientCompany,
  OTHER_APP_ID,
  adminRequest,
  createClient,
  createCompany,
  populatedWorkspace,
  limitedUserSession,
  sessionKeyFor,
} from '../../../../test/helpers/factories.js';
import { BACKENDS, type Harness, NOON, adminHarness } from '../../../../test/helpers/harness.js';
import { assertProblems } from '../../../../test/helpers/problems.js';

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
          email: {
            subject: 'Your invoice',
            header: 'Hello Ada',
            body: 'It is ready.',
            title: 'See it',
            ctaParams: { invoice: '42', tab: 'pay' },
          },
        },
      };
      assert.deepEqual(notification, expected);
      assert.deepEqual((await get('/v1/notifications')).json(), { data: [expected] }, 'listed: unread');

      h.clock.advance(1000);
      const later = new Date(NOON + 1000).toISOString();
      const read = await h.as(ws.apiKey, { method: 'POST', url: `/v1/notifications/${notification.id}/read` });
      assert.equal(read.statusCode, 200, read.body);
      const readOne = {
        ...expected,
        updatedAt: later,
        deliveryTargets: { ...expected.deliveryTargets, inProduct: { ...expected.deliveryTargets.inProduct, isRead: true } },
      };
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
          // No SMTP_URL here: the outbox shows the text (issue 42, point 13).
          text: `Hello Ada\n\nIt is ready.\n\nSee it: http://127.0.0.1:8080/notifications/${notification.id}?invoice=42&tab=pay`,
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
    test('every input rule: one recipient kind, sender, companies, targets and their limits (400 naming the field)', async (t) => {
      const h = await adminHarness(t, backend);
      const { ws, user, client, company, send } = await setting(h);
      const second = await createCompany(h, ws.apiKey, { name: 'Second Co' });
      const both = await createClient(h, ws.apiKey, { email: 'both@acme.test', givenName: 'Bo', familyName: 'Th', companyId: company.id });
      await addClientCompany(h, ws.workspaceId, both, second.id);
      const inProduct = { title: 'Hi' };
      const base = { senderId: user.id, deliveryTargets: { inProduct } };

      assertProblems(await send(base), [
        {
          path: 'body.recipientClientId',
          message: 'a recipient is required: recipientClientId, recipientInternalUserId or recipientCompanyId',
        },
      ]);
      assertProblems(await send({ ...base, recipientClientId: client.id, recipientInternalUserId: user.id }), [
        {
          path: 'body.recipientInternalUserId',
          message: 'is a second recipient: give exactly one of recipientClientId, recipientInternalUserId and recipientCompanyId',
        },
      ]);
      assertProblems(await send({ ...base, recipientInternalUserId: user.id, recipientCompanyId: company.id }), [
        { path: 'body.recipientCompanyId', message: 'goes alone or with recipientClientId, not with an internal user' },
      ]);
      assertProblems(await send({ ...base, recipientId: client.id, recipientClientId: client.id }), [
        {
          path: 'body.recipientId',
          message: 'is deprecated: give it alone, or use recipientClientId, recipientInternalUserId or recipientCompanyId',
        },
      ]);
      assertProblems(await send({ ...base, recipientClientId: UNKNOWN }), [
        { path: 'body.recipientClientId', message: 'is not a client of this workspace' },
      ]);
      assertProblems(await send({ ...base, recipientClientId: user.id }), [
        { path: 'body.recipientClientId', message: 'is not a client of this workspace' },
      ]);
      assertProblems(await send({ ...base, recipientInternalUserId: client.id }), [
        { path: 'body.recipientInternalUserId', message: 'is not an internal user of this workspace' },
      ]);
      assertProblems(await send({ ...base, recipientCompanyId: UNKNOWN }), [
        { path: 'body.recipientCompanyId', message: 'is not a company of this workspace' },
      ]);
      assertProblems(await send({ ...base, recipientClientId: both.id }), [
        { path: 'body.recipientCompanyId', message: 'is required: the recipient client belongs to several companies' },
      ]);
      const elsewhere = await createCompany(h, ws.apiKey, { name: 'Elsewhere' });
      assertProblems(await send({ ...base, recipientClientId: client.id, recipientCompanyId: elsewhere.id }), [
        { path: 'body.recipientCompanyId', message: 'is not a company of the recipient client' },
      ]);
      assertProblems(await send({ ...base, senderId: UNKNOWN, recipientClientId: client.id }), [
        { path: 'body.senderId', message: 'is not a client, internal user or company of this workspace' },
      ]);
      assertProblems(await send({ ...base, senderId: both.id, recipientInternalUserId: user.id }), [
        { path: 'body.senderCompanyId', message: 'is required: the sending client belongs to several companies' },
      ]);
      assertProblems(await send({ ...base, senderId: client.id, senderCompanyId: second.id, recipientInternalUserId: user.id }), [
        { path: 'body.senderCompanyId', message: 'is not a company of the sending client' },
      ]);
      assertProblems(await send({ ...base, senderCompanyId: company.id, recipientClientId: client.id }), [
        { path: 'body.senderCompanyId', message: 'is given only when the sender is a client' },
      ]);
      assertProblems(await send({ senderId: user.id, recipientClientId: client.id, deliveryTargets: {} }), [
        { path: 'body.deliveryTargets', message: 'needs at least one of inProduct and email' },
      ]);
      // Title: 255 characters pass, 256 do not; at most 20 call-to-action parameters, in either form.
      assert.equal(
        (await send({ ...base, recipientClientId: client.id, deliveryTargets: { inProduct: { title: 'x'.repeat(255) } } })).statusCode,
        200,
      );
      assertProblems(await send({ ...base, recipientClientId: client.id, deliveryTargets: { inProduct: { title: 'x'.repeat(256) } } }), [
        { path: 'body.deliveryTargets.inProduct.title', message: 'must NOT have more than 255 characters' },
      ]);
      const params = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 'v']));
      assert.equal(
        (await send({ ...base, recipientClientId: client.id, deliveryTargets: { inProduct: { title: 'T', ctaParams: params(20) } } }))
          .statusCode,
        200,
      );
      assertProblems(
        await send({
          ...base,
          recipientClientId: client.id,
          deliveryTargets: { email: { ctaParams: new URLSearchParams(params(21)).toString() } },
        }),
        [{ path: 'body.deliveryTargets.email.ctaParams', message: 'has more than 20 parameters' }],
      );
      // Several problems: every one named in one 400.
      const several = await send({ senderId: UNKNOWN, recipientClientId: UNKNOWN, deliveryTargets: { inProduct } });
      assert.deepEqual(several.json(), {
        code: 'bad_request',
        message: '2 fields are invalid',
        data: [
          { path: 'body.senderId', message: 'is not a client, internal user or company of this workspace' },
          { path: 'body.recipientClientId', message: 'is not a client of this workspace' },
        ],
      });

      // What is accepted: a client sender in one of its companies; the deprecated recipientId; a company as a whole; a company sender.
      const fromClient = await send({
        senderId: both.id,
        senderCompanyId: second.id,
        recipientInternalUserId: user.id,
        deliveryTargets: { inProduct },
      });
      assert.equal(fromClient.statusCode, 200, fromClient.body);
      assert.equal(fromClient.json().senderType, 'client');
      const legacy = await send({ senderId: user.id, recipientId: client.id, deliveryTargets: { inProduct } });
      assert.equal(legacy.json().recipientClientId, client.id, 'recipientId names a client');
      const legacyUser = await send({ senderId: client.id, recipientId: user.id, deliveryTargets: { inProduct } });
      assert.equal(legacyUser.json().recipientInternalUserId, user.id, 'or an internal user');
      const toCompany = await send({ senderId: company.id, recipientCompanyId: company.id, deliveryTargets: { inProduct } });
      assert.equal(toCompany.statusCode, 200, toCompany.body);
      assert.deepEqual(
        [toCompany.json().senderType, toCompany.json().recipientCompanyId, toCompany.json().recipientClientId],
        ['company', company.id, undefined],
      );
      const chosen = await send({ ...base, recipientClientId: both.id, recipientCompanyId: second.id });
      assert.equal(chosen.json().recipientCompanyId, second.id, 'the company chosen for a client of several');
    });
    test('notificationSettingId: the calling app’s setting bounds the targets; an internal user’s preferences filter them; 202 when none is left', async (t) => {
      const h = await adminHarness(t, backend);
      const { ws, app, user, client, send, get, outbox } = await setting(h);
      const install = await installWithSettings(h, ws.workspaceId, ws.apiKey, [
        { id: 's1', label: 'Both', surfaces: ['product', 'email'], default: { email: true } },
        { id: 's2', label: 'Mail', surfaces: ['email'], default: { email: true } },
      ]);
      const other = await h.appKey(ws.workspaceId, OTHER_APP_ID);
      const both = { inProduct: { title: 'T' }, email: { subject: 'S' } };
      const toClient = { senderId: user.id, recipientClientId: client.id };
      const toUser = { senderId: client.id, recipientInternalUserId: user.id };

      const byApp = await send({ ...toClient, notificationSettingId: 's1', deliveryTargets: both }, app.apiKey);
      assert.equal(byApp.statusCode, 200, byApp.body);
      assert.equal(byApp.json().appId, APP_ID, 'the calling app');
      assert.deepEqual(Object.keys(byApp.json().deliveryTargets), ['inProduct', 'email'], 'a client has no preferences: every target kept');
      assertProblems(await send({ ...toClient, notificationSettingId: 's2', deliveryTargets: both }, app.apiKey), [
        { path: 'body.deliveryTargets.inProduct', message: 'is not a surface of notification setting "s2" (email)' },
      ]);
      assertProblems(await send({ ...toClient, notificationSettingId: 'nope', deliveryTargets: both }, app.apiKey), [
        { path: 'body.notificationSettingId', message: 'is not a notification setting of the calling app’s installs' },
      ]);
      assertProblems(await send({ ...toClient, notificationSettingId: 's1', deliveryTargets: both }, other.apiKey), [
        { path: 'body.notificationSettingId', message: 'is not a notification setting of the calling app’s installs' },
      ]);
      assertProblems(await send({ ...toClient, notificationSettingId: 's1', installId: install, deliveryTargets: both }, other.apiKey), [
        { path: 'body.installId', message: 'is not an install of the calling app' },
      ]);
      assertProblems(await send({ ...toClient, notificationSettingId: 's1', deliveryTargets: both }), [
        { path: 'body.installId', message: 'is required with notificationSettingId when the caller is not an app' },
      ]);
      assertProblems(await send({ ...toClient, installId: install, deliveryTargets: both }), [
        { path: 'body.installId', message: 'is used only with notificationSettingId' },
      ]);
      assertProblems(await send({ ...toClient, notificationSettingId: 's1', installId: UNKNOWN, deliveryTargets: both }), [
        { path: 'body.installId', message: 'is not an install of this workspace with notification settings' },
      ]);
      const byWorkspace = await send({ ...toClient, notificationSettingId: 's1', installId: install, deliveryTargets: both });
      assert.equal(byWorkspace.statusCode, 200, byWorkspace.body);
      assert.equal(byWorkspace.json().appId, APP_ID, 'a workspace key sends as the install’s app');

      // Internal user recipient, s1 by default: email on, product off (omitted in the default).
      const mine = () => get(`/v1/notifications?recipientInternalUserId=${user.id}&includeRead=true`);
      const queued = (await outbox()).length;
      const nothing = await send({ ...toUser, notificationSettingId: 's1', deliveryTargets: { inProduct: { title: 'T' } } }, app.apiKey);
      assert.equal(nothing.statusCode, 202);
      assert.equal(nothing.body, '', 'an empty body');
      assert.equal(nothing.headers['content-type'], undefined);
      assert.deepEqual((await mine()).json(), { data: [] }, 'nothing stored');
      assert.equal((await outbox()).length, queued, 'nothing queued');
      const emailOnly = await send({ ...toUser, notificationSettingId: 's1', deliveryTargets: both }, app.apiKey);
      assert.equal(emailOnly.statusCode, 200, emailOnly.body);
      assert.deepEqual(emailOnly.json().deliveryTargets, { email: { subject: 'S' } }, 'only the enabled target kept');
      assert.equal((await outbox()).length, queued + 1);

      const prefer = await h.as(ws.apiKey, {
        method: 'PATCH',
        url: `/v1/internal-users/${user.id}/notification-preferences`,
        payload: { installId: install, notificationSettingId: 's1', product: true, email: false },
      });
      assert.equal(prefer.statusCode, 200, prefer.body);
      h.clock.advance(1000); // listed newest first
      const productOnly = await send({ ...toUser, notificationSettingId: 's1', deliveryTargets: both }, app.apiKey);
      assert.deepEqual(productOnly.json().deliveryTargets, { inProduct: { title: 'T', isRead: false } }, 'the preference, not the default');
      assert.equal((await send({ ...toUser, notificationSettingId: 's1', deliveryTargets: { email: {} } }, app.apiKey)).statusCode, 202);
      assert.deepEqual(
        (await mine()).json().data.map((n: { id: string }) => n.id),
        [productOnly.json().id, emailOnly.json().id],
      );
      // Without a setting no preference applies.
      assert.equal((await send({ ...toUser, deliveryTargets: { email: {} } }, app.apiKey)).statusCode, 200);

      // A 202 replays as a 202 with an empty body under its Idempotency-Key.
      const keyed = () =>
        h.as(app.apiKey, {
          method: 'POST',
          url: '/v1/notifications',
          headers: { 'idempotency-key': 'k-202' },
          payload: { ...toUser, notificationSettingId: 's1', deliveryTargets: { email: {} } },
        });
      const first = await keyed();
      const again = await keyed();
      assert.deepEqual([first.statusCode, first.body, again.statusCode, again.body], [202, '', 202, '']);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.equal(again.headers['content-type'], undefined);
    });

    test('who sees what: a client session its own and its company’s; a limited staff session its companies’ and internal users’; other workspaces nothing', async (t) => {
      const h = await adminHarness(t, backend);
      const { ws, app, user, client: ada, company: acme, send, get } = await setting(h);
      const beta = await createCompany(h, ws.apiKey, { name: 'Beta' });
      const bob = await createClient(h, ws.apiKey, { email: 'bob@beta.test', givenName: 'Bob', familyName: 'B', companyId: beta.id });
      const sent = async (recipient: object) => {
        h.clock.advance(1000);
        const res = await send({ senderId: user.id, ...recipient, deliveryTargets: { inProduct: { title: 'T' } } });
        assert.equal(res.statusCode, 200, res.body);
        return res.json().id as string;
      };
      const toAda = await sent({ recipientClientId: ada.id });
      const toBob = await sent({ recipientClientId: bob.id });
      const toAcme = await sent({ recipientCompanyId: acme.id });
      const toUser = await sent({ recipientInternalUserId: user.id });
      const toBeta = await sent({ recipientCompanyId: beta.id });
      const ids = async (key: string, query = '') => {
        const res = await get(`/v1/notifications${query}`, key);
        assert.equal(res.statusCode, 200, res.body);
        return res.json().data.map((n: { id: string }) => n.id);
      };
      assert.deepEqual(await ids(ws.apiKey), [toBeta, toUser, toAcme, toBob, toAda], 'newest first');
      assert.deepEqual(await ids(app.apiKey), [toBeta, toUser, toAcme, toBob, toAda]);
      assert.deepEqual(await ids(ws.apiKey, `?recipientClientId=${ada.id}`), [toAda]);
      assert.deepEqual(await ids(ws.apiKey, `?recipientInternalUserId=${user.id}`), [toUser]);
      assert.deepEqual(
        await ids(ws.apiKey, '?recipientClientId=&recipientInternalUserId='),
        [toBeta, toUser, toAcme, toBob, toAda],
        'empty filters: none',
      );
      const firstPage = (await get('/v1/notifications?limit=2')).json();
      assert.deepEqual(
        firstPage.data.map((n: { id: string }) => n.id),
        [toBeta, toUser],
      );
      const next = (await get(`/v1/notifications?limit=2&nextToken=${encodeURIComponent(firstPage.nextToken)}`)).json();
      assert.deepEqual(
        next.data.map((n: { id: string }) => n.id),
        [toAcme, toBob],
      );

      const adaSession = await sessionKeyFor(h, ws.workspaceId, { apiKey: app.apiKey, clientId: ada.id });
      assert.deepEqual(await ids(adaSession), [toAcme, toAda], 'its own and its company’s');
      assert.deepEqual(await ids(adaSession, `?recipientClientId=${bob.id}`), [], 'a filter cannot widen it');
      const mark = (key: string, id: string, state: string) => h.as(key, { method: 'POST', url: `/v1/notifications/${id}/${state}` });
      assert.equal((await mark(adaSession, toAda, 'read')).json().deliveryTargets.inProduct.isRead, true, 'marks its own read');
      assert.equal((await mark(adaSession, toAda, 'unread')).json().deliveryTargets.inProduct.isRead, false);
      assert.equal((await mark(adaSession, toAcme, 'read')).statusCode, 200, 'and its company’s');
      assert.equal((await mark(adaSession, toBob, 'read')).statusCode, 404, 'not another’s');
      const forbidden = { code: 'forbidden', message: 'A client session may not change this.', data: null };
      const del = await h.as(adaSession, { method: 'DELETE', url: `/v1/notifications/${toAda}` });
      assert.deepEqual([del.statusCode, del.json()], [403, forbidden]);
      const create = await send(
        { senderId: ada.id, recipientInternalUserId: user.id, deliveryTargets: { inProduct: { title: 'T' } } },
        adaSession,
      );
      assert.deepEqual([create.statusCode, create.json()], [403, forbidden]);

      const { user: limited, session: limitedSession } = await limitedUserSession(
        h,
        ws.workspaceId,
        app.apiKey,
        [beta.id],
        'lim@acme.test',
      );
      assert.deepEqual(await ids(limitedSession, '?includeRead=true'), [toBeta, toUser, toBob]);
      assert.equal((await mark(limitedSession, toAda, 'read')).statusCode, 404);
      assertProblems(
        await send({ senderId: limited.id, recipientClientId: ada.id, deliveryTargets: { inProduct: { title: 'T' } } }, limitedSession),
        [{ path: 'body.recipientClientId', message: 'is not a client of this workspace' }],
      );
      assert.equal(
        (await send({ senderId: limited.id, recipientClientId: bob.id, deliveryTargets: { inProduct: { title: 'T' } } }, limitedSession))
          .statusCode,
        200,
      );
      for (const senderId of [user.id, bob.id, beta.id]) {
        const impersonation = await send(
          { senderId, recipientClientId: bob.id, deliveryTargets: { inProduct: { title: 'T' } } },
          limitedSession,
        );
        assert.deepEqual(
          [impersonation.statusCode, impersonation.json()],
          [
            403,
            {
              code: 'forbidden',
              message: 'body.senderId must be the caller’s own user (or left out): a person acts only as itself.',
              data: null,
            },
          ],
          `nobody sends as somebody else: a session names only itself (${senderId})`,
        );
      }
      const asItself = await send(
        { senderId: limited.id.toUpperCase(), recipientClientId: bob.id, deliveryTargets: { inProduct: { title: 'T' } } },
        limitedSession,
      );
      assert.deepEqual([asItself.statusCode, asItself.json().senderId], [200, limited.id], 'its own id, in any case');
      assert.equal(
        (await send({ senderId: bob.id, recipientInternalUserId: limited.id, deliveryTargets: { inProduct: { title: 'T' } } }, app.apiKey))
          .statusCode,
        200,
        'an app key names any sender (apps act for their users)',
      );

      const elsewhere = await h.workspace('Elsewhere');
      assert.deepEqual(await ids(elsewhere.apiKey, '?includeRead=true'), []);
      assert.equal((await mark(elsewhere.apiKey, toAda, 'read')).statusCode, 404);
      assert.equal((await h.as(elsewhere.apiKey, { method: 'DELETE', url: `/v1/notifications/${toAda}` })).statusCode, 404);
      assertProblems(
        await send({ senderId: user.id, recipientClientId: ada.id, deliveryTargets: { inProduct: { title: 'T' } } }, elsewhere.apiKey),
        [
          { path: 'body.senderId', message: 'is not a client, internal user or company of this workspace' },
          { path: 'body.recipientClientId', message: 'is not a client of this workspace' },
        ],
      );
      assert.equal((await mark(ws.apiKey, 'not-a-uuid', 'read')).statusCode, 404);
    });
  });
}

for (const backend of BACKENDS) {
  // Rule (issue 42, point 13; issue 44, point 1): the "Open" link of a notification's e-mail lands on the
  // notification's page in its workspace's portal (a redirect, the call to action's parameters kept), never on a 404.
  test(`a notification e-mail's link redirects to its workspace's portal [${backend}]`, async (t) => {
    const h = await adminHarness(t, backend, { env: { PORTAL_URL: 'https://portal.acme.test' } });
    const { ws, user, client, send, outbox } = await setting(h);
    const sent = await send({
      senderId: user.id,
      recipientClientId: client.id,
      deliveryTargets: { email: { subject: 'Your invoice', title: 'Pay it', ctaParams: { invoice: '42' } } },
    });
    assert.equal(sent.statusCode, 200, sent.body);
    const id = sent.json().id;
    const [email] = await outbox();
    const link = /Pay it: (\S+)/.exec(email.text)?.[1] ?? '';
    assert.equal(link, `https://portal.acme.test/notifications/${id}?invoice=42`);
    const opened = await h.app.inject({ method: 'GET', url: link.slice('https://portal.acme.test'.length) });
    assert.deepEqual(
      [opened.statusCode, opened.headers.location, opened.body],
      [302, `/portal/${ws.workspaceId}/notifications/${id}?invoice=42`, ''],
    );
    // The portal page it names is the portal's (not the API's 404).
    const landed = await h.app.inject({ method: 'GET', url: `/portal/${ws.workspaceId}/notifications/${id}` });
    assert.notEqual(landed.statusCode, 404);
    for (const unknown of [UNKNOWN, 'not-an-id', UNKNOWN.toUpperCase()]) {
      const res = await h.app.inject({ method: 'GET', url: `/notifications/${unknown}` });
      assert.equal(res.statusCode, 404, unknown);
    }
    // A deleted notification's link: nothing to land on.
    assert.equal((await h.as(ws.apiKey, { method: 'DELETE', url: `/v1/notifications/${id}` })).statusCode, 200);
    assert.equal((await h.app.inject({ method: 'GET', url: `/notifications/${id}` })).statusCode, 404);
  });
}
