import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  adminRequest,
  createClient,
  createTestInternalUser,
  limitedUserSession,
  sessionKeyFor,
} from '../../../../test/helpers/factories.js';
import { oneJson, portal } from '../../../../test/helpers/cli.js';
import { BACKENDS, type Backend, NOON, freshDatabaseUrl, harness } from '../../../../test/helpers/harness.js';
import { assertProblems } from '../../../../test/helpers/problems.js';
import { acmeAndBeta, moduleHarness, okJson } from '../../../../test/helpers/world.js';

const AT = new Date(NOON).toISOString();

/** Acme Co (ada), Beta (bob); a staff member (user); a key-holder's calls; the audit log by event type. */
async function world(t: Parameters<typeof moduleHarness>[0], backend: Backend) {
  const w = await acmeAndBeta(await moduleHarness(t, backend));
  const create = async (payload: object, key = w.ws.apiKey) => okJson(await w.call('POST', '/v1/tasks', payload, key));
  const template = async (body: object) =>
    okJson(await adminRequest(w.h, 'POST', `/admin/workspaces/${w.ws.workspaceId}/task-templates`, body));
  return { ...w, create, template };
}

for (const backend of BACKENDS) {
  describe(`tasks (SDK createTask … retrieveTaskTemplate) [${backend}]`, () => {
    test('create: the SDK’s shape, absent fields left out, the client’s company derived; retrieve answers the same; taskCreated', async (t) => {
      const w = await world(t, backend);
      const task = await w.create({
        name: 'Send W-9',
        description: 'Before Friday',
        internalUserId: w.user.id,
        dueDate: '2026-02-01T09:00:00+02:00',
      });
      assert.deepEqual(task, {
        id: task.id,
        object: 'task',
        name: 'Send W-9',
        description: 'Before Friday',
        status: 'todo',
        internalUserId: w.user.id,
        viewers: [],
        dueDate: '2026-02-01T07:00:00.000Z',
        createdBy: w.ws.apiKeyId,
        creatorType: 'apiKey',
        source: 'platform',
        isArchived: false,
        isDeleted: false,
        createdDate: AT,
        updatedDate: AT,
      });
      assert.deepEqual((await w.call('GET', `/v1/tasks/${task.id}`)).json(), task);
      const forClient = await w.create({ name: 'Sign', clientId: w.ada.id, status: 'inProgress' });
      assert.deepEqual([forClient.clientId, forClient.companyId, forClient.status], [w.ada.id, w.acme.id, 'inProgress']);
      assert.equal('internalUserId' in forClient, false);
      const forCompany = await w.create({ name: 'Review', companyId: w.beta.id });
      assert.deepEqual([forCompany.companyId, 'clientId' in forCompany], [w.beta.id, false]);
      const created = await w.audit('taskCreated');
      assert.deepEqual(created.map((e) => e.context.taskId).sort(), [task.id, forClient.id, forCompany.id].sort());
    });

    test('created completed: completedBy, completedByUserType, completedDate, and taskCompleted', async (t) => {
      const w = await world(t, backend);
      const task = await w.create({ name: 'Done already', companyId: w.acme.id, status: 'completed' });
      assert.deepEqual([task.completedBy, task.completedByUserType, task.completedDate], [w.ws.apiKeyId, 'apiKey', AT]);
      assert.deepEqual(
        (await w.audit('taskCompleted')).map((e) => e.context.taskId),
        [task.id],
      );
    });

    test('every input rule is a 400 naming its field, and nothing is written', async (t) => {
      const w = await world(t, backend);
      const other = await w.h.workspace('Other');
      const foreign = await createClient(w.h, other.apiKey, { email: 'f@o.test', givenName: 'F', familyName: 'O' });
      const post = (body: object) => w.call('POST', '/v1/tasks', body);
      assertProblems(await post({}), ['body.name']);
      assertProblems(await post({ name: 'Two\nlines' }), ['body.name']);
      assertProblems(await post({ name: 'x'.repeat(256) }), ['body.name']);
      assertProblems(await post({ name: 'A', status: 'done' }), ['body.status']);
      assertProblems(await post({ name: 'A', dueDate: 'tomorrow' }), ['body.dueDate']);
      assertProblems(await post({ name: 'A', internalUserId: w.user.id, clientId: w.ada.id }), ['body.internalUserId']);
      assertProblems(await post({ name: 'A', internalUserId: w.ada.id }), ['body.internalUserId']);
      assertProblems(await post({ name: 'A', clientId: foreign.id }), ['body.clientId']);
      assertProblems(await post({ name: 'A', clientId: w.ada.id, companyId: w.beta.id }), ['body.clientId']);
      assertProblems(await post({ name: 'A', companyId: foreign.companyId }), ['body.companyId']);
      assertProblems(await post({ name: 'A', clientId: w.ada.id, viewers: [{ companyId: w.beta.id }] }), ['body.viewers']);
      assertProblems(await post({ name: 'A', internalUserId: w.user.id, viewers: [{ clientId: w.bob.id, companyId: w.acme.id }] }), [
        'body.viewers.0.clientId',
      ]);
      assertProblems(await post({ name: 'A', parentTaskId: w.ada.id, templateId: w.ada.id }), ['body.templateId', 'body.parentTaskId']);
      assertProblems(await post({ name: 'A', extra: 1 }), ['body.extra']);
      assertProblems(await w.call('GET', '/v1/tasks?status=later'), ['query.status']);
      assert.deepEqual((await w.call('GET', '/v1/tasks')).json(), { data: [] });
      assert.deepEqual(await w.audit('taskCreated'), []);
    });

    test('list: newest first, paged by nextToken, each SDK filter', async (t) => {
      const w = await world(t, backend);
      const first = await w.create({ name: 'First', internalUserId: w.user.id });
      w.h.clock.advance(1000);
      const second = await w.create({ name: 'Second', clientId: w.bob.id, status: 'completed' });
      w.h.clock.advance(1000);
      const sub = await w.create({ name: 'Sub', parentTaskId: first.id, companyId: w.acme.id });
      const names = async (query: string) => (await w.call('GET', `/v1/tasks${query}`)).json().data.map((task: any) => task.name);
      assert.deepEqual(await names(''), ['Sub', 'Second', 'First']);
      const page = (await w.call('GET', '/v1/tasks?limit=2')).json();
      assert.deepEqual(
        page.data.map((task: any) => task.id),
        [sub.id, second.id],
      );
      assert.deepEqual((await w.call('GET', `/v1/tasks?limit=2&nextToken=${encodeURIComponent(page.nextToken)}`)).json(), {
        data: [first],
      });
      assert.deepEqual(await names('?status=completed'), ['Second']);
      assert.deepEqual(await names(`?parentTaskId=${first.id}`), ['Sub']);
      assert.deepEqual(await names(`?clientId=${w.bob.id}`), ['Second']);
      assert.deepEqual(await names(`?companyId=${w.beta.id}`), ['Second']);
      assert.deepEqual(await names(`?internalUserId=${w.user.id}`), ['First']);
      assert.deepEqual(await names(`?createdBy=${w.ws.apiKeyId}`), ['Sub', 'Second', 'First']);
      assert.deepEqual(await names('?createdBy=&status='), ['Sub', 'Second', 'First'], 'empty filters are no filters');
    });

    test('update: fields given only; completion, archiving and their events; previous values; no change, no event', async (t) => {
      const w = await world(t, backend);
      const task = await w.create({
        name: 'Plan',
        internalUserId: w.user.id,
        dueDate: '2026-03-01T00:00:00Z',
        viewers: [{ companyId: w.beta.id }],
      });
      assert.deepEqual(task.viewers, [{ companyId: w.beta.id }]);
      w.h.clock.advance(60_000);
      const later = new Date(NOON + 60_000).toISOString();
      const patch = (body: object) => w.call('PATCH', `/v1/tasks/${task.id}`, body);
      const done = await patch({ status: 'completed', isArchived: true, dueDate: null });
      assert.equal(done.statusCode, 200, done.body);
      const { dueDate: _removed, ...undated } = task;
      assert.deepEqual(done.json(), {
        ...undated,
        status: 'completed',
        isArchived: true,
        archivedBy: w.ws.apiKeyId,
        archivedDate: later,
        completedBy: w.ws.apiKeyId,
        completedByUserType: 'apiKey',
        completedDate: later,
        updatedDate: later,
      });
      const [updated] = await w.audit('taskUpdated');
      assert.deepEqual(updated.previousAttributes, {
        status: 'todo',
        isArchived: false,
        dueDate: '2026-03-01T00:00:00.000Z',
        archivedBy: null,
        archivedDate: null,
        completedBy: null,
        completedByUserType: null,
        completedDate: null,
      });
      assert.deepEqual(
        (await w.audit('taskCompleted')).map((e) => e.context.taskId),
        [task.id],
      );
      assert.deepEqual(
        (await w.audit('taskArchived')).map((e) => e.context.taskId),
        [task.id],
      );
      const same = await patch({ status: 'completed', name: 'Plan' });
      assert.deepEqual(same.json(), done.json());
      assert.equal((await w.audit('taskUpdated')).length, 1, 'nothing changed: no event');
      const reopened = (await patch({ status: 'todo', isArchived: false, name: 'Plan B' })).json();
      assert.deepEqual(
        ['completedBy' in reopened, 'archivedDate' in reopened, reopened.isArchived, reopened.name],
        [false, false, false, 'Plan B'],
      );
      const moved = (await patch({ clientId: w.ada.id })).json();
      assert.deepEqual([moved.clientId, moved.companyId, 'internalUserId' in moved, moved.viewers], [w.ada.id, w.acme.id, false, []]);
      assertProblems(await patch({ viewers: { companyId: w.acme.id } }), ['body.viewers']);
      assertProblems(await patch({ name: '' }), ['body.name']);
      assertProblems(await patch({ isArchived: 'yes' }), ['body.isArchived']);
      const unknown = await w.call('PATCH', '/v1/tasks/00000000-0000-4000-8000-000000000000', { name: 'X' });
      assert.equal(unknown.statusCode, 404);
      assert.deepEqual(unknown.json(), { code: 'not_found', message: 'Task not found.', data: null });
    });

    test('delete: the task and its subtasks, a taskDeleted for each; then 404', async (t) => {
      const w = await world(t, backend);
      const parent = await w.create({ name: 'Parent', companyId: w.acme.id });
      const child = await w.create({ name: 'Child', parentTaskId: parent.id, companyId: w.acme.id });
      const grandchild = await w.create({ name: 'Grandchild', parentTaskId: child.id });
      const kept = await w.create({ name: 'Kept' });
      const res = await w.call('DELETE', `/v1/tasks/${parent.id}`);
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json(), { id: parent.id, object: 'task', deleted: true });
      for (const gone of [parent, child, grandchild]) assert.equal((await w.call('GET', `/v1/tasks/${gone.id}`)).statusCode, 404);
      assert.deepEqual((await w.call('GET', '/v1/tasks')).json(), { data: [kept] });
      const deleted = await w.audit('taskDeleted');
      assert.deepEqual(deleted.map((e) => e.context.taskId).sort(), [parent.id, child.id, grandchild.id].sort());
      assert.deepEqual((await w.call('DELETE', `/v1/tasks/${parent.id}`)).json(), {
        code: 'not_found',
        message: 'Task not found.',
        data: null,
      });
    });

    test('templates: made on the admin surface, listed and retrieved; a task from one copies its fields and subtasks', async (t) => {
      const w = await world(t, backend);
      const template = await w.template({ name: 'Onboarding', description: 'New client', subTaskTemplates: [{ name: 'Collect W-9' }] });
      assert.deepEqual(template, {
        id: template.id,
        object: 'taskTemplate',
        name: 'Onboarding',
        description: 'New client',
        createdDate: AT,
        subTaskTemplates: [
          { id: template.subTaskTemplates[0].id, object: 'taskTemplate', name: 'Collect W-9', description: '', createdDate: AT },
        ],
      });
      assert.deepEqual((await w.call('GET', '/v1/task-templates')).json(), { data: [template] });
      assert.deepEqual((await w.call('GET', `/v1/task-templates/${template.id}`)).json(), template);
      assert.equal((await w.call('GET', `/v1/task-templates/${w.ada.id}`)).statusCode, 404);
      const task = await w.create({ templateId: template.id, clientId: w.ada.id });
      assert.deepEqual([task.name, task.description, task.templateId], ['Onboarding', 'New client', template.id]);
      const subtasks = (await w.call('GET', `/v1/tasks?parentTaskId=${task.id}`)).json().data;
      assert.deepEqual(
        subtasks.map((s: any) => [s.name, s.clientId, s.companyId, s.status]),
        [['Collect W-9', w.ada.id, w.acme.id, 'todo']],
      );
      const named = await w.create({ templateId: template.id, name: 'Onboarding Bob', description: '' });
      assert.deepEqual([named.name, named.description], ['Onboarding Bob', '']);
      const bad = await adminRequest(w.h, 'POST', `/admin/workspaces/${w.ws.workspaceId}/task-templates`, {
        name: 'T',
        subTaskTemplates: Array.from({ length: 21 }, () => ({ name: 's' })),
      });
      assertProblems(bad, ['body.subTaskTemplates']);
    });

    test('templates on /v1: an admin (or a key) creates, changes and deletes one; staff get 403, a client session 404; tasks made from it stay', async (t) => {
      const w = await world(t, backend);
      const admin = await createTestInternalUser(w.h, w.ws.workspaceId, {
        email: 'boss@acme.test',
        givenName: 'Bo',
        familyName: 'Ss',
        role: 'admin',
      });
      const adminSession = await sessionKeyFor(w.h, w.ws.workspaceId, { apiKey: w.app.apiKey, internalUserId: admin.id });
      const staffSession = await sessionKeyFor(w.h, w.ws.workspaceId, { apiKey: w.app.apiKey, internalUserId: w.user.id });
      const clientSession = await sessionKeyFor(w.h, w.ws.workspaceId, { apiKey: w.app.apiKey, clientId: w.ada.id });
      const made = await w.call('POST', '/v1/task-templates', { name: 'Onboarding', subTaskTemplates: [{ name: 'W-9' }] }, adminSession);
      assert.equal(made.statusCode, 200, made.body);
      const template = made.json();
      assert.deepEqual(
        [
          template.object,
          template.name,
          template.description,
          template.createdDate,
          template.subTaskTemplates.map((s: { name: string }) => s.name),
        ],
        ['taskTemplate', 'Onboarding', '', AT, ['W-9']],
      );
      assert.deepEqual((await w.call('GET', `/v1/task-templates/${template.id}`)).json(), template);
      const task = await w.create({ templateId: template.id, clientId: w.ada.id });

      const changed = await w.call(
        'PATCH',
        `/v1/task-templates/${template.id}`,
        { description: 'New client', subTaskTemplates: [] },
        adminSession,
      );
      assert.equal(changed.statusCode, 200, changed.body);
      assert.deepEqual(changed.json(), { ...template, description: 'New client', subTaskTemplates: [] });
      assert.deepEqual((await w.call('GET', `/v1/task-templates/${template.id}`)).json(), changed.json());
      const renamed = await w.call('PATCH', `/v1/task-templates/${template.id}`, { name: 'Welcome' });
      assert.equal(renamed.json().name, 'Welcome');
      assertProblems(await w.call('PATCH', `/v1/task-templates/${template.id}`, { name: '' }), ['body.name']);
      assertProblems(await w.call('POST', '/v1/task-templates', { description: 'no name' }), ['body.name']);
      assert.equal((await w.call('PATCH', `/v1/task-templates/${w.ada.id}`, { name: 'X' })).statusCode, 404);

      for (const [method, url, body] of [
        ['POST', '/v1/task-templates', { name: 'Mine' }],
        ['PATCH', `/v1/task-templates/${template.id}`, { name: 'Mine' }],
        ['DELETE', `/v1/task-templates/${template.id}`, undefined],
      ] as const) {
        const staff = await w.call(method, url, body, staffSession);
        assert.deepEqual([staff.statusCode, staff.json().code], [403, 'forbidden'], `staff: ${method} ${url}`);
        const client = await w.call(method, url, body, clientSession);
        assert.deepEqual([client.statusCode, client.json().code], [404, 'not_found'], `client: ${method} ${url}`);
      }
      assert.equal((await w.call('GET', '/v1/task-templates', undefined, staffSession)).json().data.length, 1, 'staff read templates');

      const deleted = await w.call('DELETE', `/v1/task-templates/${template.id}`, undefined, adminSession);
      assert.deepEqual(deleted.json(), { id: template.id, object: 'taskTemplate', deleted: true });
      assert.equal((await w.call('GET', `/v1/task-templates/${template.id}`)).statusCode, 404);
      assert.equal((await w.call('DELETE', `/v1/task-templates/${template.id}`)).statusCode, 404);
      const kept = (await w.call('GET', `/v1/tasks/${task.id}`)).json();
      assert.deepEqual([kept.name, 'templateId' in kept], ['Onboarding', false]);
      assert.deepEqual((await w.call('GET', '/v1/task-templates')).json(), { data: [] });
    });

    test('a client session sees the tasks of itself, its company as a whole, or that it views; it creates and deletes none (403)', async (t) => {
      const w = await world(t, backend);
      const mine = await w.create({ name: 'Mine', clientId: w.ada.id });
      const company = await w.create({ name: 'Company', companyId: w.acme.id });
      const viewed = await w.create({ name: 'Viewed', internalUserId: w.user.id, viewers: [{ clientId: w.ada.id }] });
      const bobs = await w.create({ name: 'Bob', clientId: w.bob.id });
      const staff = await w.create({ name: 'Staff', internalUserId: w.user.id });
      const session = await sessionKeyFor(w.h, w.ws.workspaceId, { apiKey: w.app.apiKey, clientId: w.ada.id });
      const list = (await w.call('GET', '/v1/tasks', undefined, session)).json().data.map((task: any) => task.id);
      assert.deepEqual(list.sort(), [mine.id, company.id, viewed.id].sort());
      assert.equal((await w.call('GET', `/v1/tasks/${mine.id}`, undefined, session)).statusCode, 200);
      for (const hidden of [bobs, staff]) {
        const res = await w.call('GET', `/v1/tasks/${hidden.id}`, undefined, session);
        assert.deepEqual([res.statusCode, res.json().code], [404, 'not_found']);
      }
      for (const [method, url, body] of [
        ['POST', '/v1/tasks', { name: 'Mine too', clientId: w.ada.id }],
        ['DELETE', `/v1/tasks/${mine.id}`, undefined],
      ] as const) {
        const write = await w.call(method, url, body, session);
        assert.deepEqual([write.statusCode, write.json().code], [403, 'forbidden'], `${method} ${url}`);
      }
      const templates = await w.call('GET', '/v1/task-templates', undefined, session);
      assert.deepEqual([templates.statusCode, templates.json().code], [404, 'not_found']);
    });

    test('a client completes and reopens the tasks of itself and of its company (status only); a task it views, or another field, is a 403', async (t) => {
      const w = await world(t, backend);
      const mine = await w.create({ name: 'Mine', clientId: w.ada.id });
      const company = await w.create({ name: 'Company', companyId: w.acme.id, status: 'inProgress' });
      const viewed = await w.create({ name: 'Viewed', internalUserId: w.user.id, viewers: [{ clientId: w.ada.id }] });
      const session = await sessionKeyFor(w.h, w.ws.workspaceId, { apiKey: w.app.apiKey, clientId: w.ada.id });
      const patch = (id: string, body: object) => w.call('PATCH', `/v1/tasks/${id}`, body, session);

      for (const task of [mine, company]) {
        const done = okJson(await patch(task.id, { status: 'completed' }));
        assert.deepEqual(
          [done.status, done.completedBy, done.completedByUserType, typeof done.completedDate],
          ['completed', w.ada.id, 'client', 'string'],
        );
        const reopened = okJson(await patch(task.id, { status: 'todo' }));
        assert.deepEqual([reopened.status, 'completedBy' in reopened, 'completedDate' in reopened], ['todo', false, false]);
      }
      const completed = await w.audit('taskCompleted');
      assert.deepEqual(
        completed.map((e) => [e.context.taskId, e.actorType, e.actorId]).sort(),
        [
          [company.id, 'clientUser', w.ada.id],
          [mine.id, 'clientUser', w.ada.id],
        ].sort(),
      );

      const refusals: [string, object][] = [
        [viewed.id, { status: 'completed' }],
        [mine.id, { name: 'Renamed' }],
        [mine.id, { status: 'completed', dueDate: null }],
        [mine.id, { isArchived: true }],
        [mine.id, { clientId: w.ada.id }],
      ];
      for (const [id, body] of refusals) {
        const res = await patch(id, body);
        assert.deepEqual(
          [res.statusCode, res.json().message],
          [403, 'A client changes only the status of a task assigned to it or to its company (completing or reopening it).'],
          JSON.stringify(body),
        );
      }
      assert.equal(okJson(await w.call('GET', `/v1/tasks/${mine.id}`)).name, 'Mine', 'nothing changed');
      // Another client's task is absent to it, as on a read.
      const bobs = await w.create({ name: 'Bob', clientId: w.bob.id });
      assert.equal((await patch(bobs.id, { status: 'completed' })).statusCode, 404);
    });

    test('an internal user limited to Beta sees Beta’s tasks and those of no company; assigns only within Beta', async (t) => {
      const w = await world(t, backend);
      const acme = await w.create({ name: 'Acme', clientId: w.ada.id });
      const viewedByAcme = await w.create({ name: 'Viewed', internalUserId: w.user.id, viewers: [{ companyId: w.acme.id }] });
      const beta = await w.create({ name: 'Beta', companyId: w.beta.id });
      const staff = await w.create({ name: 'Staff', internalUserId: w.user.id });
      const { session } = await limitedUserSession(w.h, w.ws.workspaceId, w.app.apiKey, [w.beta.id], 'lim@beta.test');
      const list = (await w.call('GET', '/v1/tasks', undefined, session)).json().data.map((task: any) => task.id);
      assert.deepEqual(list.sort(), [beta.id, staff.id].sort());
      for (const hidden of [acme, viewedByAcme]) {
        assert.equal((await w.call('GET', `/v1/tasks/${hidden.id}`, undefined, session)).statusCode, 404);
        assert.equal((await w.call('PATCH', `/v1/tasks/${hidden.id}`, { name: 'X' }, session)).statusCode, 404);
        assert.equal((await w.call('DELETE', `/v1/tasks/${hidden.id}`, undefined, session)).statusCode, 404);
      }
      assertProblems(await w.call('POST', '/v1/tasks', { name: 'A', clientId: w.ada.id }, session), ['body.clientId']);
      const own = await w.create({ name: 'Bob’s', clientId: w.bob.id }, session);
      assert.deepEqual([own.creatorType, own.companyId], ['internalUser', w.beta.id]);
    });

    test('a session acts as itself: createdBy, completedBy and archivedBy name its user; no field names another actor (400)', async (t) => {
      const w = await world(t, backend);
      const session = await sessionKeyFor(w.h, w.ws.workspaceId, { apiKey: w.app.apiKey, internalUserId: w.user.id });
      const task = await w.create({ name: 'Mine', status: 'completed', clientId: w.ada.id }, session);
      assert.deepEqual(
        [task.createdBy, task.creatorType, task.completedBy, task.completedByUserType],
        [w.user.id, 'internalUser', w.user.id, 'internalUser'],
      );
      const archived = await w.call('PATCH', `/v1/tasks/${task.id}`, { isArchived: true }, session);
      assert.equal(archived.json().archivedBy, w.user.id, archived.body);
      assertProblems(await w.call('POST', '/v1/tasks', { name: 'A', createdBy: w.ws.apiKeyId }, session), ['body.createdBy']);
      assertProblems(await w.call('PATCH', `/v1/tasks/${task.id}`, { completedBy: w.ws.apiKeyId }, session), ['body.completedBy']);
    });

    test('deletes reach only what the caller sees: a subtask of a company it cannot see makes the delete a 403, nothing deleted', async (t) => {
      const w = await world(t, backend);
      const parent = await w.create({ name: 'Beta parent', companyId: w.beta.id });
      const hidden = await w.create({ name: 'Acme subtask', parentTaskId: parent.id, clientId: w.ada.id });
      const seen = await w.create({ name: 'Beta subtask', parentTaskId: parent.id, clientId: w.bob.id });
      const { session } = await limitedUserSession(w.h, w.ws.workspaceId, w.app.apiKey, [w.beta.id], 'lim@beta.test');
      const refused = await w.call('DELETE', `/v1/tasks/${parent.id}`, undefined, session);
      assert.equal(refused.statusCode, 403, refused.body);
      assert.deepEqual(refused.json(), {
        code: 'forbidden',
        message: 'Deleting this task would also delete a subtask you cannot see; nothing was deleted.',
        data: null,
      });
      for (const kept of [parent, hidden, seen]) assert.equal((await w.call('GET', `/v1/tasks/${kept.id}`)).statusCode, 200, kept.name);
      assert.deepEqual(await w.audit('taskDeleted'), []);
      // Its own tree, every task of which it sees, it deletes whole.
      const own = await w.create({ name: 'Own', companyId: w.beta.id }, session);
      const ownSub = await w.create({ name: 'Own subtask', parentTaskId: own.id, clientId: w.bob.id }, session);
      const deleted = await w.call('DELETE', `/v1/tasks/${own.id}`, undefined, session);
      assert.deepEqual([deleted.statusCode, deleted.json()], [200, { id: own.id, object: 'task', deleted: true }]);
      assert.equal((await w.call('GET', `/v1/tasks/${ownSub.id}`)).statusCode, 404);
      // A key sees the whole workspace: the first tree goes whole.
      assert.equal((await w.call('DELETE', `/v1/tasks/${parent.id}`)).statusCode, 200);
      assert.deepEqual(
        (await w.audit('taskDeleted')).map((e) => e.context.taskId).sort(),
        [own.id, ownSub.id, parent.id, hidden.id, seen.id].sort(),
      );
    });

    test('staff change their own, their assigned and shared tasks; another internal user’s task only its user, its creator or a full admin (403)', async (t) => {
      const w = await world(t, backend);
      const person = async (email: string, role: 'admin' | 'staff', companyAccessList?: string[]) => {
        const user = await createTestInternalUser(w.h, w.ws.workspaceId, {
          email,
          givenName: 'G',
          familyName: 'F',
          role,
          ...(companyAccessList ? { companyAccessList } : {}),
        });
        return { user, session: await sessionKeyFor(w.h, w.ws.workspaceId, { apiKey: w.app.apiKey, internalUserId: user.id }) };
      };
      const admin = await person('admin@acme.test', 'admin');
      const staff = await person('s@acme.test', 'staff');
      const other = await person('o@acme.test', 'staff');
      const limitedAdmin = await person('la@beta.test', 'admin', [w.beta.id]);
      const { session: limited } = await limitedUserSession(w.h, w.ws.workspaceId, w.app.apiKey, [w.beta.id], 'lim@beta.test');
      const OTHERS = {
        code: 'forbidden',
        message:
          'This task is assigned to another internal user: only that user, the task’s creator or an admin with access to every company may change it.',
        data: null,
      };
      const refused = async (method: 'PATCH' | 'DELETE', id: string, session: string) => {
        const res = await w.call(method, `/v1/tasks/${id}`, method === 'PATCH' ? { status: 'completed' } : undefined, session);
        assert.deepEqual([res.statusCode, res.json()], [403, OTHERS], `${method} ${res.body}`);
      };
      const changes = async (id: string, session: string, body: object = { status: 'inProgress' }) => {
        const res = await w.call('PATCH', `/v1/tasks/${id}`, body, session);
        assert.equal(res.statusCode, 200, res.body);
        return res.json();
      };
      // The admin's own task, made by the admin: staff, limited staff and a limited admin see it, and may not change it.
      const admins = await w.create({ name: 'Admin’s', internalUserId: admin.user.id }, admin.session);
      for (const session of [staff.session, limited, limitedAdmin.session]) {
        await refused('PATCH', admins.id, session);
        await refused('DELETE', admins.id, session);
      }
      const sub = await w.call('POST', '/v1/tasks', { name: 'Sneaked in', parentTaskId: admins.id }, staff.session);
      assert.deepEqual(
        [sub.statusCode, sub.json()],
        [
          403,
          {
            code: 'forbidden',
            message:
              'body.parentTaskId: the parent task is assigned to another internal user: only that user, the task’s creator or an admin with access to every company may change it (or add subtasks to it).',
            data: null,
          },
        ],
      );
      assert.deepEqual((await w.call('GET', `/v1/tasks/${admins.id}`)).json(), admins, 'unchanged');
      assert.deepEqual(await w.audit('taskUpdated'), []);
      // A task it created, though assigned to another: the creator's. One assigned to it: the assignee's, who may hand it on.
      const delegated = await w.create({ name: 'Delegated', internalUserId: other.user.id }, staff.session);
      await changes(delegated.id, staff.session);
      const assigned = await w.create({ name: 'Assigned', internalUserId: staff.user.id }, admin.session);
      const handedOn = await changes(assigned.id, staff.session, { internalUserId: other.user.id });
      assert.equal(handedOn.internalUserId, other.user.id);
      await refused('PATCH', assigned.id, staff.session);
      await changes(assigned.id, other.session);
      // A task of a client or a company (or of no one) is shared work: any staff who sees it changes it.
      const clients = await w.create({ name: 'Client’s', clientId: w.bob.id }, admin.session);
      await changes(clients.id, staff.session);
      await changes(clients.id, limited);
      // An admin with access to every company, and keys, change anything.
      await changes(admins.id, admin.session, { name: 'Still the admin’s' });
      await changes(delegated.id, admin.session);
      await changes(admins.id, w.ws.apiKey, { name: 'Renamed by an app' });
      // A delete reaches only tasks the caller may change: a subtask assigned to another internal user refuses it.
      const parent = await w.create({ name: 'Staff’s parent', internalUserId: staff.user.id }, staff.session);
      const othersSub = await w.create({ name: 'Other’s subtask', parentTaskId: parent.id, internalUserId: other.user.id }, admin.session);
      const cascade = await w.call('DELETE', `/v1/tasks/${parent.id}`, undefined, staff.session);
      assert.deepEqual(
        [cascade.statusCode, cascade.json()],
        [
          403,
          {
            code: 'forbidden',
            message:
              'Deleting this task would also delete a subtask assigned to another internal user, which only that user, its creator or an admin with access to every company may delete; nothing was deleted.',
            data: null,
          },
        ],
      );
      assert.equal((await w.call('GET', `/v1/tasks/${othersSub.id}`)).statusCode, 200);
      assert.equal((await w.call('DELETE', `/v1/tasks/${parent.id}`, undefined, admin.session)).statusCode, 200);
      assert.equal((await w.call('DELETE', `/v1/tasks/${delegated.id}`, undefined, staff.session)).statusCode, 200);
    });

    test('another workspace’s tasks and templates are absent: 404 on read, change and delete; its lists empty', async (t) => {
      const w = await world(t, backend);
      const task = await w.create({ name: 'Private', clientId: w.ada.id });
      const template = await w.template({ name: 'Private template' });
      const other = await w.h.workspace('Other');
      for (const [method, url, body] of [
        ['GET', `/v1/tasks/${task.id}`],
        ['PATCH', `/v1/tasks/${task.id}`, { name: 'Stolen' }],
        ['DELETE', `/v1/tasks/${task.id}`],
        ['GET', `/v1/task-templates/${template.id}`],
      ] as const) {
        const res = await w.call(method, url, body, other.apiKey);
        assert.deepEqual([res.statusCode, res.json().code], [404, 'not_found'], `${method} ${url}`);
      }
      assert.deepEqual((await w.call('GET', '/v1/tasks', undefined, other.apiKey)).json(), { data: [] });
      assert.deepEqual((await w.call('GET', '/v1/task-templates', undefined, other.apiKey)).json(), { data: [] });
      assertProblems(await w.call('POST', '/v1/tasks', { templateId: template.id, parentTaskId: task.id }, other.apiKey), [
        'body.templateId',
        'body.parentTaskId',
        'body.name',
      ]);
      assert.equal((await w.call('GET', `/v1/tasks/${task.id}`)).json().name, 'Private');
    });

    test('portal task-templates create: the admin route’s input, checked by the same schema; the API then serves it', {
      timeout: 60_000,
    }, async (t) => {
      const url = await freshDatabaseUrl(t, backend, { sqliteFile: true });
      const run = async (...args: string[]) => portal(url, ...args, '--json');
      const ws = oneJson((await run('workspaces', 'create', '--name', 'Tasks')).stdout);
      const W = ['--workspace', ws.workspaceId];
      const made = await run('task-templates', 'create', ...W, '--name', 'Close books', '--subtasks', '[{"name":"Reconcile"}]');
      assert.equal(made.code, 0, made.stderr);
      const template = oneJson(made.stdout);
      assert.deepEqual(
        [template.object, template.name, template.description, template.subTaskTemplates.map((s: { name: string }) => s.name)],
        ['taskTemplate', 'Close books', '', ['Reconcile']],
      );
      const bad = await run('task-templates', 'create', ...W, '--name', 'Bad', '--subtasks', '[{"title":"x"}]');
      assert.notEqual(bad.code, 0);
      assert.deepEqual(oneJson(bad.stdout), { error: { code: 'bad_request', message: '2 fields are invalid' } });
      const unparsable = await run('task-templates', 'create', ...W, '--name', 'Bad', '--subtasks', '[');
      assert.equal(unparsable.code, 2, unparsable.stderr);
      const h = await harness(t, backend, { databaseUrl: url, webhooks: false, subscriptionPollMs: false });
      const listed = await h.as(ws.apiKey, { method: 'GET', url: '/v1/task-templates' });
      assert.deepEqual(listed.json(), { data: [template] });
    });
  });
}
