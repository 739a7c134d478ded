// Issue 32, point 3: the staff lifecycle. An internal user's role and company limits change on the admin surface
// and the CLI (internalUserAccessLevelChanged, internalUserClientVisibilitySet), its sessions carrying the new access
// on their next request; a removed user's sessions are refused at once, its tasks stay unassigned (internalUserDeleted);
// a workspace keeps its last admin; another workspace's user is not found.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { oneJson, portal } from '../../../../test/helpers/cli.js';
import {
  adminRequest,
  auditEntries,
  createCompany,
  createTestInternalUser,
  populatedWorkspace,
  sessionKeyFor,
} from '../../../../test/helpers/factories.js';
import { BACKENDS, adminHarness, freshDatabaseUrl } from '../../../../test/helpers/harness.js';

const PATH = (workspaceId: string, id: string) => `/admin/workspaces/${workspaceId}/internal-users/${id}`;

for (const backend of BACKENDS) {
  describe(`staff lifecycle [${backend}]`, () => {
    async function world(t: Parameters<typeof adminHarness>[0]) {
      const h = await adminHarness(t, backend);
      const w = await populatedWorkspace(h);
      const admin = await createTestInternalUser(h, w.ws.workspaceId, {
        email: 'boss@acme.test',
        givenName: 'B',
        familyName: 'O',
        role: 'admin',
      });
      const staffKey = await sessionKeyFor(h, w.ws.workspaceId, { apiKey: w.app.apiKey, internalUserId: w.user.id });
      const me = async () => h.as(staffKey, { method: 'GET', url: '/v1/me' });
      return { h, ...w, admin, staffKey, me };
    }

    test('role and companies change once each, with their events; the session sees the new access at once', async (t) => {
      const { h, ws, user, company, staffKey } = await world(t);
      const other = await createCompany(h, ws.apiKey, { name: 'Other Co' });
      const companiesSeen = async () =>
        (await h.as(staffKey, { method: 'GET', url: '/v1/companies?limit=100' }))
          .json()
          .data.map((c: { id: string }) => c.id)
          .sort();
      assert.deepEqual(await companiesSeen(), [company.id, other.id].sort(), 'every company before');
      const promoted = await adminRequest(h, 'PATCH', PATH(ws.workspaceId, user.id), { role: 'admin', companyAccessList: [company.id] });
      assert.equal(promoted.statusCode, 200, promoted.body);
      assert.deepEqual(
        [promoted.json().role, promoted.json().isClientAccessLimited, promoted.json().companyAccessList],
        ['admin', true, [company.id]],
      );
      assert.deepEqual(await companiesSeen(), [company.id], 'the same session, on its next request: its company alone');
      const unchanged = await adminRequest(h, 'PATCH', PATH(ws.workspaceId, user.id), { role: 'admin' });
      assert.equal(unchanged.statusCode, 200);
      h.clock.advance(1000); // the entries in order of their time
      const everyCompany = await adminRequest(h, 'PATCH', PATH(ws.workspaceId, user.id), { companyAccessList: null });
      assert.deepEqual([everyCompany.json().isClientAccessLimited, everyCompany.json().companyAccessList], [false, []]);
      const events = (await auditEntries(h, ws.workspaceId)).filter(
        (e) => e.event_type.startsWith('internalUser') && e.event_type !== 'internalUserCreated',
      );
      assert.deepEqual(
        events.map((e) => [e.event_type, e.context]),
        [
          ['internalUserAccessLevelChanged', { internalUserId: user.id, previousRole: 'staff', role: 'admin' }],
          ['internalUserClientVisibilitySet', { internalUserId: user.id, isClientAccessLimited: true, companyAccessList: [company.id] }],
          ['internalUserClientVisibilitySet', { internalUserId: user.id, isClientAccessLimited: false, companyAccessList: [] }],
        ],
        'nothing recorded for the request that changed nothing',
      );
    });

    test('bad input: unknown company, empty body, unknown field — 400 naming it, nothing changed', async (t) => {
      const { h, ws, user } = await world(t);
      const unknown = '00000000-0000-4000-8000-000000000000';
      const res = await adminRequest(h, 'PATCH', PATH(ws.workspaceId, user.id), { companyAccessList: [unknown] });
      assert.equal(res.statusCode, 400);
      assert.deepEqual(res.json(), {
        code: 'bad_request',
        message: `companyAccessList: not a company of this workspace: ${unknown}`,
        data: [{ path: 'companyAccessList', message: `${unknown} is not a company of this workspace` }],
      });
      assert.equal((await adminRequest(h, 'PATCH', PATH(ws.workspaceId, user.id), {})).statusCode, 400);
      assert.equal((await adminRequest(h, 'PATCH', PATH(ws.workspaceId, user.id), { email: 'x@y.test' })).statusCode, 400);
      assert.equal((await adminRequest(h, 'PATCH', PATH(ws.workspaceId, user.id), { role: 'owner' })).statusCode, 400);
      assert.equal((await h.as(ws.apiKey, { method: 'GET', url: `/v1/internal-users/${user.id}` })).json().role, 'staff');
    });

    test('a removed user: its session refused at once, its tasks unassigned, internalUserDeleted, then 404', async (t) => {
      const { h, ws, user, staffKey, me } = await world(t);
      const task = await h.as(ws.apiKey, { method: 'POST', url: '/v1/tasks', payload: { name: 'Follow up', internalUserId: user.id } });
      assert.equal(task.statusCode, 200, task.body);
      assert.equal((await me()).statusCode, 200);
      const removed = await adminRequest(h, 'DELETE', PATH(ws.workspaceId, user.id));
      assert.equal(removed.statusCode, 200, removed.body);
      assert.deepEqual(removed.json(), { id: user.id, object: 'internalUser', deleted: true });
      assert.equal((await h.as(staffKey, { method: 'GET', url: '/v1/me' })).statusCode, 401, 'the session ends at once');
      const kept = await h.as(ws.apiKey, { method: 'GET', url: `/v1/tasks/${task.json().id}` });
      assert.equal(kept.statusCode, 200, 'the task stays');
      assert.equal(kept.json().internalUserId, undefined, 'unassigned');
      assert.equal((await h.as(ws.apiKey, { method: 'GET', url: `/v1/internal-users/${user.id}` })).statusCode, 404);
      const deleted = (await auditEntries(h, ws.workspaceId)).filter((e) => e.event_type === 'internalUserDeleted');
      assert.deepEqual(
        deleted.map((e) => e.context),
        [{ internalUserId: user.id, email: user.email, role: 'staff' }],
      );
      assert.equal((await adminRequest(h, 'DELETE', PATH(ws.workspaceId, user.id))).statusCode, 404, 'gone');
    });

    test('the last admin can be neither made staff nor removed (409); another workspace’s user is not found', async (t) => {
      const { h, ws, admin } = await world(t);
      const demote = await adminRequest(h, 'PATCH', PATH(ws.workspaceId, admin.id), { role: 'staff' });
      assert.equal(demote.statusCode, 409);
      assert.match(demote.json().message, /last admin/);
      assert.equal((await adminRequest(h, 'DELETE', PATH(ws.workspaceId, admin.id))).statusCode, 409);
      const other = await h.workspace('Other');
      assert.equal((await adminRequest(h, 'PATCH', PATH(other.workspaceId, admin.id), { role: 'staff' })).statusCode, 404);
      assert.equal((await adminRequest(h, 'DELETE', PATH(other.workspaceId, admin.id))).statusCode, 404);
      const second = await createTestInternalUser(h, ws.workspaceId, {
        email: 'two@acme.test',
        givenName: 'T',
        familyName: 'W',
        role: 'admin',
      });
      assert.equal(
        (await adminRequest(h, 'PATCH', PATH(ws.workspaceId, admin.id), { role: 'staff' })).statusCode,
        200,
        'with another admin',
      );
      assert.equal((await adminRequest(h, 'DELETE', PATH(ws.workspaceId, second.id))).statusCode, 409, 'now the last one');
    });

    test('two admins made staff at once: one of them stays admin (409 for the other)', async (t) => {
      const { h, ws, admin } = await world(t);
      const second = await createTestInternalUser(h, ws.workspaceId, {
        email: 'two@acme.test',
        givenName: 'T',
        familyName: 'W',
        role: 'admin',
      });
      const answers = await Promise.all(
        [admin, second].map((u) => adminRequest(h, 'PATCH', PATH(ws.workspaceId, u.id), { role: 'staff' })),
      );
      assert.deepEqual(answers.map((a) => a.statusCode).sort(), [200, 409]);
      const roles = await Promise.all(
        [admin, second].map(async (u) => (await h.as(ws.apiKey, { method: 'GET', url: `/v1/internal-users/${u.id}` })).json().role),
      );
      assert.deepEqual(roles.sort(), ['admin', 'staff']);
    });

    test('the portal command: internal-users update and delete', async (t) => {
      const databaseUrl = await freshDatabaseUrl(t, backend, { sqliteFile: true });
      const ws = oneJson((await portal(databaseUrl, 'workspaces', 'create', '--name', 'Cli', '--json')).stdout);
      const created = await portal(
        databaseUrl,
        'internal-users',
        'create',
        '--workspace',
        ws.workspaceId,
        '--email',
        's@cli.test',
        '--given-name',
        'S',
        '--family-name',
        'T',
        '--json',
      );
      const { id } = oneJson(created.stdout);
      // `portal internal-users <command>` for this user.
      const ofUser = (command: string, ...args: string[]) =>
        portal(databaseUrl, 'internal-users', command, '--workspace', ws.workspaceId, '--internal-user', id, ...args);
      const updated = await ofUser('update', '--role', 'admin', '--json');
      assert.equal(updated.code, 0, updated.stderr);
      assert.deepEqual(oneJson(updated.stdout), { id, role: 'admin', companyAccessList: null });
      const both = await ofUser('update', '--limit-to-companies', 'a', '--all-companies');
      assert.equal(both.code, 2);
      const nothing = await ofUser('update');
      assert.equal(nothing.code, 2);
      const last = await ofUser('delete');
      assert.notEqual(last.code, 0, 'the last admin');
      assert.match(last.stderr, /last admin/);
      await ofUser('update', '--role', 'staff');
      const removed = await ofUser('delete', '--json');
      assert.notEqual(removed.code, 0, 'still the last admin: the demotion was refused');
    });
  });
}
