// Rule (issue 45, point 3): the team on /v1. `POST /v1/internal-users`, `PATCH` and `DELETE /v1/internal-users/{id}` are
// for keys, bearer tokens and an admin who sees every company (its app session or signed in to the portal): staff get
// 403, an admin limited to some companies 403, a client session 404, another workspace's user 404. They do what the
// admin surface's staff lifecycle does (the same events; a removed user's sessions, its portal sign-in included, end at
// once), the workspace keeps an admin (409, taken atomically: of two admins removed at once one stays), and nobody
// changes or removes itself (403). `sendInvite=true` e-mails the new person a link to choose a password (the sign-in
// surface's reset link, 7 days, once), never answered to the inviter.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  auditEntries,
  createTestInternalUser,
  mintBearerToken,
  populatedWorkspace,
  sessionKeyFor,
  withBearer,
} from '../../../../test/helpers/factories.js';
import { BACKENDS } from '../../../../test/helpers/harness.js';
import { emailCount, lastEmailTo, portalBrowser, signedInBrowser } from '../../../../test/helpers/portal.js';
import { assertProblems } from '../../../../test/helpers/problems.js';
import { moduleHarness, okJson } from '../../../../test/helpers/world.js';

const NOW = '2026-01-15T12:00:00.000Z';
const STAFF_REFUSED = { code: 'forbidden', message: 'Staff may not do this; an admin may.', data: null };
const CLIENT_HIDDEN = { code: 'not_found', message: 'Resource not found.', data: null };
const LIMITED_REFUSED = {
  code: 'forbidden',
  message: 'An admin limited to some companies may not change the team: an admin who sees every company may.',
  data: null,
};
const PASSWORD = 'correct horse battery staple';

for (const backend of BACKENDS) {
  describe(`the team on /v1 [${backend}]`, () => {
    /** Acme (its key, app key, staff Sam, Acme Co with ada), an admin (Alice) and the sessions of each kind of person. */
    async function world(t: Parameters<typeof moduleHarness>[0]) {
      const h = await moduleHarness(t, backend);
      const w = await populatedWorkspace(h);
      const { workspaceId } = w.ws;
      const admin = await createTestInternalUser(h, workspaceId, {
        email: 'alice@acme.test',
        givenName: 'Alice',
        familyName: 'A',
        role: 'admin',
      });
      const limitedAdmin = await createTestInternalUser(h, workspaceId, {
        email: 'lim@acme.test',
        givenName: 'Li',
        familyName: 'M',
        role: 'admin',
        companyAccessList: [w.company.id],
      });
      const session = (body: { internalUserId?: string; clientId?: string }) =>
        sessionKeyFor(h, workspaceId, { apiKey: w.app.apiKey, ...body });
      const keys = {
        workspace: w.ws.apiKey,
        admin: await session({ internalUserId: admin.id }),
        staff: await session({ internalUserId: w.user.id }),
        limitedAdmin: await session({ internalUserId: limitedAdmin.id }),
        client: await session({ clientId: w.client.id }),
      };
      const as = (key: string, method: 'POST' | 'PATCH' | 'DELETE' | 'GET', url: string, payload?: object) =>
        h.as(key, { method, url, ...(payload ? { payload } : {}) });
      const other = await h.workspace('Other');
      const stranger = await createTestInternalUser(h, other.workspaceId, {
        email: 'x@other.test',
        givenName: 'X',
        familyName: 'O',
        role: 'admin',
      });
      return { h, ...w, workspaceId, admin, limitedAdmin, keys, as, other, stranger };
    }

    test('create: a key, a bearer token and an admin may; staff 403, a limited admin 403, a client 404; internalUserCreated', async (t) => {
      const { h, workspaceId, company, admin, keys, as, app } = await world(t);
      const body = { email: 'Nia@Acme.test', givenName: 'Nia', familyName: 'New', role: 'staff', companyAccessList: [company.id] };
      const staff = await as(keys.staff, 'POST', '/v1/internal-users', body);
      assert.deepEqual([staff.statusCode, staff.json()], [403, STAFF_REFUSED]);
      const client = await as(keys.client, 'POST', '/v1/internal-users', body);
      assert.deepEqual([client.statusCode, client.json()], [404, CLIENT_HIDDEN]);
      const limited = await as(keys.limitedAdmin, 'POST', '/v1/internal-users', body);
      assert.deepEqual([limited.statusCode, limited.json()], [403, LIMITED_REFUSED]);

      const created = await as(keys.admin, 'POST', '/v1/internal-users', body);
      assert.equal(created.statusCode, 200, created.body);
      const nia = created.json();
      assert.deepEqual(nia, {
        id: nia.id,
        object: 'internalUser',
        createdAt: NOW,
        updatedAt: NOW,
        email: 'Nia@Acme.test',
        givenName: 'Nia',
        familyName: 'New',
        role: 'staff',
        isClientAccessLimited: true,
        companyAccessList: [company.id],
        fallbackColor: nia.fallbackColor,
      });
      assert.deepEqual(okJson(await as(keys.workspace, 'GET', `/v1/internal-users/${nia.id}`)), nia, 'as GET answers it');
      const byKey = okJson(
        await as(keys.workspace, 'POST', '/v1/internal-users', { email: 'k@acme.test', givenName: 'K', familyName: 'K' }),
      );
      assert.deepEqual(
        [byKey.role, byKey.isClientAccessLimited, byKey.companyAccessList],
        ['staff', false, []],
        'staff of every company by default',
      );
      const { token } = (await mintBearerToken(h, app.apiKey)).json();
      const byToken = await withBearer(h, token, 'POST', '/v1/internal-users', {
        email: 'b@acme.test',
        givenName: 'B',
        familyName: 'B',
        role: 'admin',
      });
      assert.equal(byToken.statusCode, 200, byToken.body);

      const taken = await as(keys.admin, 'POST', '/v1/internal-users', { ...body, email: 'nia@ACME.test' });
      assert.equal(taken.statusCode, 409, taken.body);
      assert.equal(taken.json().code, 'conflict');
      const unknown = '00000000-0000-4000-8000-000000000000';
      const badCompany = await as(keys.admin, 'POST', '/v1/internal-users', {
        ...body,
        email: 'q@acme.test',
        companyAccessList: [unknown],
      });
      assertProblems(badCompany, [{ path: 'companyAccessList', message: `${unknown} is not a company of this workspace` }]);
      assertProblems(await as(keys.admin, 'POST', '/v1/internal-users', { ...body, email: 'r@acme.test', role: 'owner' }), ['body.role']);
      assertProblems(await as(keys.admin, 'POST', '/v1/internal-users?sendInvite=maybe', { ...body, email: 's@acme.test' }), [
        'query.sendInvite',
      ]);

      const entries = (await auditEntries(h, workspaceId)).filter((e) => e.event_type === 'internalUserCreated' && e.created_at === NOW);
      const niaEntry = entries.find((e) => e.context.internalUserId === nia.id);
      assert.ok(niaEntry);
      assert.deepEqual(
        [niaEntry.actor_id, niaEntry.actor_type, niaEntry.source, niaEntry.context],
        [
          admin.id,
          'internalUser',
          'platform',
          { internalUserId: nia.id, email: 'Nia@Acme.test', role: 'staff', companyAccessList: [company.id] },
        ],
      );
      assert.equal(
        entries.filter((e) => e.context.email === 'q@acme.test' || e.context.email === 'nia@ACME.test').length,
        0,
        'nothing for refusals',
      );
    });

    test('sendInvite: an e-mail with a link to choose a password (never in the answer); it works once, for 7 days', async (t) => {
      const { h, workspaceId, admin, keys, as } = await world(t);
      // An admin signed in to the portal, with its cookie, as the staff pages will call it.
      const browser = await signedInBrowser(h, workspaceId, admin.email, 'internalUser');
      const invited = await browser.api('POST', '/internal-users?sendInvite=true', {
        email: 'ivy@acme.test',
        givenName: 'Ivy',
        familyName: 'I',
      });
      assert.equal(invited.statusCode, 200, invited.body);
      assert.equal(invited.body.includes('reset-password'), false, 'the link is not answered');
      const mail = await lastEmailTo(h, workspaceId, 'ivy@acme.test', 'reset-password');
      assert.equal(mail.subject, 'You are invited to Acme');
      assert.equal(mail.url, `http://127.0.0.1:8080/portal/${workspaceId}/reset-password`);
      assert.match(
        mail.text,
        /^Hello Ivy,\n\nYou have been added to the team of Acme\. Choose your password with this link \(it works once, until 2026-01-22T12:00:00\.000Z\)/,
      );
      const entry = (await auditEntries(h, workspaceId)).find(
        (e) => e.event_type === 'internalUserCreated' && e.context.email === 'ivy@acme.test',
      );
      assert.deepEqual([entry?.source, entry?.actor_id, entry?.context.inviteSent], ['web', admin.id, true]);

      h.clock.advance(6 * 24 * 3600_000); // six days later: still good
      const person = portalBrowser(h, workspaceId);
      const chosen = await person.call('POST', '/password-resets/complete', { token: mail.token, password: PASSWORD });
      assert.equal(chosen.statusCode, 204, chosen.body);
      const again = await person.call('POST', '/password-resets/complete', { token: mail.token, password: PASSWORD });
      assert.equal(again.statusCode, 401, 'once');
      const signedIn = await person.call('POST', '/sign-in/password', {
        email: 'ivy@acme.test',
        password: PASSWORD,
        userType: 'internalUser',
      });
      assert.equal(signedIn.statusCode, 200, signedIn.body);
      assert.equal(signedIn.json().stage, 'active');
      assert.equal((await person.api('GET', '/me')).json().id, invited.json().id, 'signed in as the new person');

      const late = okJson(
        await as(keys.workspace, 'POST', '/v1/internal-users?sendInvite=true', {
          email: 'lou@acme.test',
          givenName: 'Lou',
          familyName: 'L',
        }),
      );
      const lateMail = await lastEmailTo(h, workspaceId, 'lou@acme.test', 'reset-password');
      h.clock.advance(7 * 24 * 3600_000 + 1000);
      const expired = await person.call('POST', '/password-resets/complete', { token: lateMail.token, password: PASSWORD });
      assert.equal(expired.statusCode, 401, 'past 7 days');
      assert.ok(late.id);
      okJson(
        await as(keys.workspace, 'POST', '/v1/internal-users?sendInvite=false', {
          email: 'no@acme.test',
          givenName: 'No',
          familyName: 'N',
        }),
      );
      okJson(await as(keys.workspace, 'POST', '/v1/internal-users', { email: 'none@acme.test', givenName: 'No', familyName: 'N' }));
      assert.deepEqual([await emailCount(h, workspaceId, 'no@acme.test'), await emailCount(h, workspaceId, 'none@acme.test')], [0, 0]);
    });

    test('PATCH: role and companies by an admin, with their events; staff 403, client 404, limited admin 403, itself 403, another workspace 404, the last admin 409', async (t) => {
      const { h, workspaceId, user, company, admin, keys, as, stranger } = await world(t);
      const url = `/v1/internal-users/${user.id}`;
      assert.deepEqual(await as(keys.staff, 'PATCH', url, { role: 'admin' }).then((r) => [r.statusCode, r.json()]), [403, STAFF_REFUSED]);
      assert.deepEqual(await as(keys.client, 'PATCH', url, { role: 'admin' }).then((r) => [r.statusCode, r.json()]), [404, CLIENT_HIDDEN]);
      assert.deepEqual(await as(keys.limitedAdmin, 'PATCH', url, { role: 'admin' }).then((r) => [r.statusCode, r.json()]), [
        403,
        LIMITED_REFUSED,
      ]);
      const itself = await as(keys.admin, 'PATCH', `/v1/internal-users/${admin.id}`, { role: 'staff' });
      assert.deepEqual(
        [itself.statusCode, itself.json()],
        [403, { code: 'forbidden', message: 'You may not change the access of yourself: another admin may.', data: null }],
      );
      assert.equal(
        (await as(keys.admin, 'PATCH', `/v1/internal-users/${stranger.id}`, { role: 'staff' })).statusCode,
        404,
        'another workspace’s',
      );
      assertProblems(await as(keys.admin, 'PATCH', url, {}), ['body']);

      const staffSession = keys.staff;
      const changed = await as(keys.admin, 'PATCH', url, { role: 'admin', companyAccessList: [company.id] });
      assert.equal(changed.statusCode, 200, changed.body);
      assert.deepEqual(
        [changed.json().role, changed.json().isClientAccessLimited, changed.json().companyAccessList],
        ['admin', true, [company.id]],
      );
      const seen = okJson(await as(staffSession, 'GET', '/v1/companies?limit=100')).data.map((c: { id: string }) => c.id);
      assert.deepEqual(seen, [company.id], 'its session carries its new companies at once');
      const events = (await auditEntries(h, workspaceId)).filter(
        (e) => e.event_type === 'internalUserAccessLevelChanged' || e.event_type === 'internalUserClientVisibilitySet',
      );
      assert.deepEqual(
        events.map((e) => [e.event_type, e.actor_id, e.context]),
        [
          ['internalUserAccessLevelChanged', admin.id, { internalUserId: user.id, previousRole: 'staff', role: 'admin' }],
          [
            'internalUserClientVisibilitySet',
            admin.id,
            { internalUserId: user.id, isClientAccessLimited: true, companyAccessList: [company.id] },
          ],
        ],
      );
      // Alice is the last admin who sees every company… but Sam and Li are admins too: demote them, then Alice is the last.
      okJson(await as(keys.workspace, 'PATCH', url, { role: 'staff' }));
      const li = (await as(keys.workspace, 'GET', '/v1/internal-users?limit=100'))
        .json()
        .data.find((u: { email: string }) => u.email === 'lim@acme.test');
      okJson(await as(keys.workspace, 'PATCH', `/v1/internal-users/${li.id}`, { role: 'staff' }));
      const last = await as(keys.workspace, 'PATCH', `/v1/internal-users/${admin.id}`, { role: 'staff' });
      assert.equal(last.statusCode, 409, last.body);
      assert.deepEqual(last.json(), {
        code: 'conflict',
        message: `Internal user ${admin.id} is the workspace's last admin and cannot be made staff: make another user admin first.`,
        data: null,
      });
    });

    test('DELETE: a removed member’s portal sign-in and app session are refused on their next request; internalUserDeleted; itself 403; the last admin 409', async (t) => {
      const { h, workspaceId, user, admin, limitedAdmin, keys, as, stranger } = await world(t);
      const url = `/v1/internal-users/${user.id}`;
      assert.deepEqual(await as(keys.staff, 'DELETE', url).then((r) => [r.statusCode, r.json()]), [403, STAFF_REFUSED]);
      assert.deepEqual(await as(keys.client, 'DELETE', url).then((r) => [r.statusCode, r.json()]), [404, CLIENT_HIDDEN]);
      assert.deepEqual(await as(keys.limitedAdmin, 'DELETE', url).then((r) => [r.statusCode, r.json()]), [403, LIMITED_REFUSED]);
      const itself = await as(keys.admin, 'DELETE', `/v1/internal-users/${admin.id}`);
      assert.deepEqual(
        [itself.statusCode, itself.json()],
        [403, { code: 'forbidden', message: 'You may not remove yourself: another admin may.', data: null }],
      );
      assert.equal((await as(keys.admin, 'DELETE', `/v1/internal-users/${stranger.id}`)).statusCode, 404, 'another workspace’s');
      assert.equal((await as(keys.admin, 'DELETE', `/v1/internal-users/${stranger.id}`)).json().code, 'not_found');

      // Sam signed in to the portal, and through an app: both work, then neither once Sam is removed.
      const sam = await signedInBrowser(h, workspaceId, user.email, 'internalUser');
      assert.equal((await sam.api('GET', '/me')).statusCode, 200);
      assert.equal((await as(keys.staff, 'GET', '/v1/me')).statusCode, 200);
      const removed = await as(keys.admin, 'DELETE', url);
      assert.equal(removed.statusCode, 200, removed.body);
      assert.deepEqual(removed.json(), { id: user.id, object: 'internalUser', deleted: true });
      const next = await sam.api('GET', '/me');
      assert.equal(next.statusCode, 401, `the cookie's next request: ${next.body}`);
      assert.equal((await sam.api('GET', '/clients')).statusCode, 401);
      assert.equal((await as(keys.staff, 'GET', '/v1/me')).statusCode, 401, 'its app session too');
      assert.equal((await as(keys.admin, 'DELETE', url)).statusCode, 404, 'gone');
      const deleted = (await auditEntries(h, workspaceId)).filter((e) => e.event_type === 'internalUserDeleted');
      assert.deepEqual(
        deleted.map((e) => [e.actor_id, e.source, e.context]),
        [[admin.id, 'platform', { internalUserId: user.id, email: user.email, role: 'staff' }]],
      );
      // With Li gone too, Alice is the last admin: a key cannot remove her.
      okJson(await as(keys.admin, 'DELETE', `/v1/internal-users/${limitedAdmin.id}`));
      const last = await as(keys.workspace, 'DELETE', `/v1/internal-users/${admin.id}`);
      assert.equal(last.statusCode, 409, last.body);
      assert.match(last.json().message, /last admin and cannot be removed/);
    });

    test('two admins removed at once, by a key or by each other: one of them stays (409 for the other, or 401 once its user is gone)', async (t) => {
      const { h, workspaceId, admin, limitedAdmin, keys, as, app } = await world(t);
      okJson(await as(keys.workspace, 'PATCH', `/v1/internal-users/${limitedAdmin.id}`, { role: 'staff' })); // Alice alone, then
      for (let round = 0; round < 3; round++) {
        const a = okJson(
          await as(keys.workspace, 'POST', '/v1/internal-users', {
            email: `a${round}@acme.test`,
            givenName: 'A',
            familyName: `${round}`,
            role: 'admin',
          }),
        );
        const b = okJson(
          await as(keys.workspace, 'POST', '/v1/internal-users', {
            email: `b${round}@acme.test`,
            givenName: 'B',
            familyName: `${round}`,
            role: 'admin',
          }),
        );
        okJson(await as(keys.workspace, 'PATCH', `/v1/internal-users/${admin.id}`, { role: 'staff' }), 'Alice steps aside: two admins');
        // By the workspace key: both at once.
        const byKey = await Promise.all([a, b].map((u) => as(keys.workspace, 'DELETE', `/v1/internal-users/${u.id}`)));
        assert.deepEqual(byKey.map((r) => r.statusCode).sort(), [200, 409], `round ${round}: ${byKey.map((r) => r.body)}`);
        const admins = (await as(keys.workspace, 'GET', '/v1/internal-users?limit=100'))
          .json()
          .data.filter((u: { role: string }) => u.role === 'admin');
        assert.equal(admins.length, 1, 'one admin stays');
        // Two admins removing each other with their own sessions, at once.
        const c = okJson(
          await as(keys.workspace, 'POST', '/v1/internal-users', {
            email: `c${round}@acme.test`,
            givenName: 'C',
            familyName: `${round}`,
            role: 'admin',
          }),
        );
        const [stay] = admins;
        const sessionOf = (id: string) => sessionKeyFor(h, workspaceId, { apiKey: app.apiKey, internalUserId: id });
        const [stayKey, cKey] = await Promise.all([sessionOf(stay.id), sessionOf(c.id)]);
        const mutual = await Promise.all([
          as(stayKey, 'DELETE', `/v1/internal-users/${c.id}`),
          as(cKey, 'DELETE', `/v1/internal-users/${stay.id}`),
        ]);
        // The other is refused: 409 when both were admitted at once, 401 when its own user was already removed.
        const [removed, refused] = mutual[0].statusCode === 200 ? mutual : [mutual[1], mutual[0]];
        assert.ok(removed.statusCode === 200 && [401, 409].includes(refused.statusCode), `round ${round}: ${mutual.map((r) => r.body)}`);
        const left = (await as(keys.workspace, 'GET', '/v1/internal-users?limit=100'))
          .json()
          .data.filter((u: { role: string }) => u.role === 'admin');
        assert.equal(left.length, 1, 'one admin stays');
        okJson(await as(keys.workspace, 'PATCH', `/v1/internal-users/${admin.id}`, { role: 'admin' }));
        okJson(await as(keys.workspace, 'DELETE', `/v1/internal-users/${left[0].id}`));
      }
    });

    test('the admin surface’s routes stay, for the operator', async (t) => {
      const { h, workspaceId, user } = await world(t);
      const res = await h.app.inject({
        method: 'PATCH',
        url: `/admin/workspaces/${workspaceId}/internal-users/${user.id}`,
        headers: { authorization: `Bearer ${h.adminToken}` },
        payload: { role: 'admin' },
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().role, 'admin');
      const removed = await h.app.inject({
        method: 'DELETE',
        url: `/admin/workspaces/${workspaceId}/internal-users/${user.id}`,
        headers: { authorization: `Bearer ${h.adminToken}` },
      });
      assert.deepEqual([removed.statusCode, removed.json()], [200, { id: user.id, object: 'internalUser', deleted: true }]);
    });
  });
}
