import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { auditEntries, createCompany, limitedUserSession, sessionKeyFor } from '../../../../test/helpers/factories.js';
import { BACKENDS, type Backend, NOON } from '../../../../test/helpers/harness.js';
import { assertProblems } from '../../../../test/helpers/problems.js';
import { acmeAndBeta, moduleHarness, okJson } from '../../../../test/helpers/world.js';

const AT = new Date(NOON).toISOString();
const NOT_FOUND = { code: 'not_found', message: 'Note not found.', data: null };

type Body = Record<string, unknown>;

/** Acme Co (ada), Beta (bob); a key-holder's calls; the audit log by event type. */
async function world(t: Parameters<typeof moduleHarness>[0], backend: Backend) {
  const w = await acmeAndBeta(await moduleHarness(t, backend));
  const create = async (payload: object, key = w.ws.apiKey) => okJson(await w.call('POST', '/v1/notes', payload, key)) as Body;
  /** Each entry of the event: its note, and the company a limited internal user must hold to read it (scope_company_id). */
  const scoped = async (eventType: string) =>
    (await auditEntries(w.h, w.ws.workspaceId))
      .filter((e) => e.event_type === eventType)
      .map((e) => [e.context.noteId, e.scope_company_id]);
  const ids = async (query: string, key = w.ws.apiKey) =>
    ((await w.call('GET', `/v1/notes${query}`, undefined, key)).json().data as Body[]).map((note) => note.id);
  return { ...w, create, scoped, ids };
}

for (const backend of BACKENDS) {
  describe(`notes (SDK createNote, listNotes, retrieveNote, updateNote, deleteNote) [${backend}]`, () => {
    test('create on a client and on a company: the SDK’s shape, content stored as given (not sanitized), no content left out; noteCreated', async (t) => {
      const w = await world(t, backend);
      const html = '<p>Prefers <b>e-mail</b></p><script>alert(1)</script>';
      const onClient = await w.create({ entityType: 'client', entityId: w.ada.id, title: 'Contact', content: html });
      assert.deepEqual(onClient, {
        id: onClient.id,
        object: 'note',
        entityType: 'client',
        entityId: w.ada.id,
        title: 'Contact',
        content: html,
        creatorId: w.ws.apiKeyId,
        createdAt: AT,
        updatedAt: AT,
      });
      assert.deepEqual((await w.call('GET', `/v1/notes/${onClient.id}`)).json(), onClient);
      const onCompany = await w.create({ entityType: 'company', entityId: w.beta.id.toUpperCase(), title: 'Renewal' });
      assert.deepEqual([onCompany.entityId, 'content' in onCompany], [w.beta.id, false]);
      assert.equal((await w.audit('noteCreated')).length, 2, 'served by GET /v1/audit-logs');
      assert.deepEqual(
        (await w.scoped('noteCreated')).sort(),
        [
          [onClient.id, w.acme.id],
          [onCompany.id, w.beta.id],
        ].sort(),
      );
    });

    test('every input rule is a 400 naming its field, and nothing is written', async (t) => {
      const w = await world(t, backend);
      const post = (body: object) => w.call('POST', '/v1/notes', body);
      const other = await w.h.workspace('Other');
      const foreign = await createCompany(w.h, other.apiKey, { name: 'Foreign' });
      assertProblems(await post({ entityId: w.ada.id, title: 'T' }), ['body.entityType']);
      assertProblems(await post({ entityType: 'invoice', entityId: w.ada.id, title: 'T' }), ['body.entityType']);
      assertProblems(await post({ entityType: 'client', entityId: w.ada.id, title: 'One\nTwo' }), ['body.title']);
      assertProblems(await post({ entityType: 'client', entityId: w.ada.id, title: ' ' }), ['body.title']);
      assertProblems(await post({ entityType: 'client', entityId: w.ada.id, title: 'x'.repeat(256) }), ['body.title']);
      assertProblems(await post({ entityType: 'client', entityId: w.ada.id, title: 'T', content: 'x'.repeat(100_001) }), ['body.content']);
      assertProblems(await post({ entityType: 'client', entityId: w.acme.id, title: 'T' }), ['body.entityId']);
      assertProblems(await post({ entityType: 'company', entityId: w.ada.id, title: 'T' }), ['body.entityId']);
      assertProblems(await post({ entityType: 'company', entityId: foreign.id, title: 'T' }), ['body.entityId']);
      assertProblems(await w.call('GET', `/v1/notes?entityId=${w.ada.id}`), ['query.entityType']);
      assertProblems(await w.call('GET', '/v1/notes?entityType=invoice'), ['query.entityType']);
      assert.deepEqual((await w.call('GET', '/v1/notes')).json(), { data: [] });
      assert.deepEqual(await w.audit('noteCreated'), []);
    });

    test('list: newest first, paged by nextToken, filtered by entityType and entityId', async (t) => {
      const w = await world(t, backend);
      const ada = await w.create({ entityType: 'client', entityId: w.ada.id, title: 'A' });
      w.h.clock.advance(1000);
      const bob = await w.create({ entityType: 'client', entityId: w.bob.id, title: 'B' });
      w.h.clock.advance(1000);
      const beta = await w.create({ entityType: 'company', entityId: w.beta.id, title: 'C' });
      assert.deepEqual(await w.ids(''), [beta.id, bob.id, ada.id]);
      const page = (await w.call('GET', '/v1/notes?limit=2')).json();
      assert.deepEqual(
        page.data.map((note: Body) => note.id),
        [beta.id, bob.id],
      );
      assert.deepEqual((await w.call('GET', `/v1/notes?limit=2&nextToken=${encodeURIComponent(page.nextToken)}`)).json(), { data: [ada] });
      assert.deepEqual(await w.ids('?entityType=client'), [bob.id, ada.id]);
      assert.deepEqual(await w.ids(`?entityType=client&entityId=${w.ada.id}`), [ada.id]);
      assert.deepEqual(await w.ids(`?entityType=company&entityId=${w.beta.id}`), [beta.id]);
      assert.deepEqual(await w.ids(`?entityType=company&entityId=${w.ada.id}`), []);
      assert.deepEqual(await w.ids('?entityType=&entityId='), [beta.id, bob.id, ada.id], 'empty filters are no filters');
    });

    test('update: the fields given; noteUpdated with the previous values; nothing changed, no event; unknown id 404', async (t) => {
      const w = await world(t, backend);
      const note = await w.create({ entityType: 'company', entityId: w.acme.id, title: 'Draft', content: '<p>a</p>' });
      w.h.clock.advance(60_000);
      const patch = (body: object) => w.call('PATCH', `/v1/notes/${note.id}`, body);
      const res = await patch({ title: 'Final' });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json(), { ...note, title: 'Final', updatedAt: new Date(NOON + 60_000).toISOString() });
      const [updated] = await w.audit('noteUpdated');
      assert.deepEqual(updated.previousAttributes, { title: 'Draft' });
      assert.deepEqual(await w.scoped('noteUpdated'), [[note.id, w.acme.id]]);
      assert.deepEqual((await patch({ title: 'Final', content: '<p>a</p>' })).json(), res.json());
      assert.equal((await w.audit('noteUpdated')).length, 1, 'nothing changed: no event');
      assert.equal((await patch({ content: '' })).json().content, '');
      assertProblems(await patch({ title: 'a\rb' }), ['body.title']);
      assertProblems(await patch({ entityId: w.beta.id }), ['body.entityId']);
      const unknown = await w.call('PATCH', '/v1/notes/00000000-0000-4000-8000-000000000000', { title: 'X' });
      assert.deepEqual([unknown.statusCode, unknown.json()], [404, NOT_FOUND]);
    });

    test('delete: gone for good (404 after), noteDeleted with its last state; a deleted client takes its notes along', async (t) => {
      const w = await world(t, backend);
      const note = await w.create({ entityType: 'client', entityId: w.ada.id, title: 'Bye' });
      const res = await w.call('DELETE', `/v1/notes/${note.id}`);
      assert.deepEqual([res.statusCode, res.json()], [200, { id: note.id, object: 'note', deleted: true }]);
      assert.deepEqual((await w.call('GET', `/v1/notes/${note.id}`)).json(), NOT_FOUND);
      assert.deepEqual((await w.call('DELETE', `/v1/notes/${note.id}`)).json(), NOT_FOUND);
      const [deleted] = await w.audit('noteDeleted');
      assert.deepEqual(JSON.parse(deleted.data as string), note, 'its last state');
      assert.deepEqual(await w.scoped('noteDeleted'), [[note.id, w.acme.id]]);
      const bobs = await w.create({ entityType: 'client', entityId: w.bob.id, title: 'Bob' });
      assert.equal((await w.call('DELETE', `/v1/clients/${w.bob.id}`)).statusCode, 200);
      assert.equal((await w.call('GET', `/v1/notes/${bobs.id}`)).statusCode, 404);
    });

    test('staff only: a client session gets 404 on every notes route, as for the other staff-only resources', async (t) => {
      const w = await world(t, backend);
      const note = await w.create({ entityType: 'client', entityId: w.ada.id, title: 'About Ada' });
      const session = await sessionKeyFor(w.h, w.ws.workspaceId, { apiKey: w.app.apiKey, clientId: w.ada.id });
      for (const [method, url, body] of [
        ['GET', '/v1/notes'],
        ['GET', `/v1/notes/${note.id}`],
        ['POST', '/v1/notes', { entityType: 'client', entityId: w.ada.id, title: 'Mine' }],
        ['PATCH', `/v1/notes/${note.id}`, { title: 'Mine' }],
        ['DELETE', `/v1/notes/${note.id}`],
      ] as const) {
        const res = await w.call(method, url, body, session);
        assert.deepEqual(
          [res.statusCode, res.json()],
          [404, { code: 'not_found', message: 'Resource not found.', data: null }],
          `${method} ${url}`,
        );
      }
      assert.deepEqual(await w.ids(''), [note.id], 'nothing changed');
    });

    test('an internal user limited to Beta sees the notes on Beta and its clients only, and writes only there', async (t) => {
      const w = await world(t, backend);
      const onAda = await w.create({ entityType: 'client', entityId: w.ada.id, title: 'Ada' });
      const onAcme = await w.create({ entityType: 'company', entityId: w.acme.id, title: 'Acme' });
      const onBob = await w.create({ entityType: 'client', entityId: w.bob.id, title: 'Bob' });
      const onBeta = await w.create({ entityType: 'company', entityId: w.beta.id, title: 'Beta' });
      const { user, session } = await limitedUserSession(w.h, w.ws.workspaceId, w.app.apiKey, [w.beta.id], 'lim@beta.test');
      assert.deepEqual((await w.ids('', session)).sort(), [onBob.id, onBeta.id].sort());
      for (const hidden of [onAda, onAcme]) {
        for (const [method, body] of [['GET'], ['PATCH', { title: 'X' }], ['DELETE']] as const) {
          const res = await w.call(method, `/v1/notes/${hidden.id}`, body, session);
          assert.deepEqual([res.statusCode, res.json()], [404, NOT_FOUND], `${method} ${hidden.title}`);
        }
      }
      assertProblems(await w.call('POST', '/v1/notes', { entityType: 'client', entityId: w.ada.id, title: 'X' }, session), [
        'body.entityId',
      ]);
      assertProblems(await w.call('POST', '/v1/notes', { entityType: 'company', entityId: w.acme.id, title: 'X' }, session), [
        'body.entityId',
      ]);
      const own = await w.create({ entityType: 'client', entityId: w.bob.id, title: 'Mine' }, session);
      assert.equal(own.creatorId, user.id);
    });

    test('another workspace’s notes are absent: 404 on read, change and delete; its list empty', async (t) => {
      const w = await world(t, backend);
      const note = await w.create({ entityType: 'client', entityId: w.ada.id, title: 'Private' });
      const other = await w.h.workspace('Other');
      for (const [method, body] of [['GET'], ['PATCH', { title: 'Stolen' }], ['DELETE']] as const) {
        const res = await w.call(method, `/v1/notes/${note.id}`, body, other.apiKey);
        assert.deepEqual([res.statusCode, res.json()], [404, NOT_FOUND], method);
      }
      assert.deepEqual((await w.call('GET', '/v1/notes', undefined, other.apiKey)).json(), { data: [] });
      assertProblems(await w.call('POST', '/v1/notes', { entityType: 'client', entityId: w.ada.id, title: 'X' }, other.apiKey), [
        'body.entityId',
      ]);
      assert.deepEqual((await w.call('GET', `/v1/notes/${note.id}`)).json(), note);
    });
  });
}
