// Rule (issue 33, point 6): a form can be edited (PATCH /admin/workspaces/{id}/forms/{formId}, `portal forms update`),
// recording formEdited; an edit of its name, description or fields is a new version, and a response keeps the version
// it was answered on (read afterwards, it shows that version's questions), while a pending one answers the newest.
// Forms made before versions existed are version 1, and their responses point at it.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Kysely } from 'kysely';
import { adminRequest } from '../../../../test/helpers/factories.js';
import { oneJson, portal } from '../../../../test/helpers/cli.js';
import { BACKENDS, type Backend, NOON, freshDatabaseUrl, harness } from '../../../../test/helpers/harness.js';
import { assertProblems } from '../../../../test/helpers/problems.js';
import { acmeAndBeta, moduleHarness, okJson } from '../../../../test/helpers/world.js';
import { openDatabase } from '../../../db/open.js';
import { MIGRATIONS } from '../../../db/migrations/index.js';

const at = (ms: number) => new Date(NOON + ms).toISOString();

/** Acme Co (ada), Beta (bob); a form "Intake" (an e-mail, required; notes); edit and complete as one call each. */
async function world(t: Parameters<typeof moduleHarness>[0], backend: Backend, databaseUrl?: string) {
  const w = await acmeAndBeta(await moduleHarness(t, backend, databaseUrl === undefined ? {} : { databaseUrl }));
  const formsUrl = `/admin/workspaces/${w.ws.workspaceId}/forms`;
  const form = okJson(
    await adminRequest(w.h, 'POST', formsUrl, {
      name: 'Intake',
      description: 'Tell us about you',
      formFields: [
        { title: 'E-mail', type: 'email', isRequired: true },
        { title: 'Notes', type: 'longAnswer' },
      ],
    }),
  );
  const edit = (body: object, id = form.id, workspaceId = w.ws.workspaceId) =>
    adminRequest(w.h, 'PATCH', `/admin/workspaces/${workspaceId}/forms/${id}`, body);
  const request = async (clientId: string, companyId: string) =>
    okJson(await w.call('POST', '/v1/form-responses', { formId: form.id, clientCompanyIds: [{ clientId, companyId }] }));
  const adaSession = await w.session({ clientId: w.ada.id });
  const bobSession = await w.session({ clientId: w.bob.id });
  const complete = (id: string, answers: object, key: string) => w.call('POST', `/v1/form-responses/${id}/complete`, { answers }, key);
  return { ...w, form, edit, request, complete, adaSession, bobSession };
}

for (const backend of BACKENDS) {
  describe(`forms edited into versions (adminUpdateForm) [${backend}]`, () => {
    test('an edit: the form’s new version, formEdited with what was; an answered response keeps its version’s questions', async (t) => {
      const w = await world(t, backend);
      const [email, notes] = w.form.formFieldIds;
      const adas = await w.request(w.ada.id, w.acme.id);
      w.h.clock.advance(1000);
      const bobs = await w.request(w.bob.id, w.beta.id);
      w.h.clock.advance(1000);
      const answered = okJson(await w.complete(adas.id, { [email]: 'ada@acme.test', [notes]: 'Hi' }, w.adaSession));
      assert.equal(answered.formVersion, 1);

      w.h.clock.advance(1000);
      const res = await w.edit({
        name: 'Intake 2',
        formFields: [
          { formFieldId: email, title: 'Work e-mail', type: 'email', isRequired: true },
          { title: 'Team size', type: 'number', isRequired: true },
        ],
      });
      assert.equal(res.statusCode, 200, res.body);
      const edited = res.json();
      const size = edited.formFieldIds[1];
      assert.notEqual(size, notes);
      assert.deepEqual(edited, {
        ...w.form,
        name: 'Intake 2',
        formFieldIds: [email, size],
        formFields: [
          { formFieldId: email, title: 'Work e-mail', description: '', type: 'email', isRequired: true },
          { formFieldId: size, title: 'Team size', description: '', type: 'number', isRequired: true },
        ],
        formResponseRequests: 2,
        formResponseSubmissions: 1,
        latestSubmissionDate: at(2000),
        version: 2,
        updatedAt: at(3000),
      });
      assert.deepEqual(okJson(await w.call('GET', `/v1/forms/${w.form.id}`)), edited);

      // The answered response: version 1's name, description and questions, its answers.
      assert.deepEqual(okJson(await w.call('GET', `/v1/form-responses/${adas.id}`)), answered);
      assert.deepEqual(okJson(await w.call('GET', `/v1/form-responses/${adas.id}`, undefined, w.adaSession)), answered);
      // The pending one answers the newest version: its questions now, version 2.
      const pending = okJson(await w.call('GET', `/v1/form-responses/${bobs.id}`));
      assert.deepEqual(pending, {
        ...bobs,
        formName: 'Intake 2',
        formFieldIds: [email, size],
        formFields: {
          [email]: { title: 'Work e-mail', description: '', type: 'email', isRequired: true },
          [size]: { title: 'Team size', description: '', type: 'number', isRequired: true },
        },
        formVersion: 2,
      });
      assertProblems(await w.complete(bobs.id, { [email]: 'bob@beta.test', [notes]: 'x' }, w.bobSession), [
        { path: `body.answers.${notes}`, message: 'is not a field of this form' },
        { path: `body.answers.${size}`, message: 'is required' },
      ]);
      w.h.clock.advance(1000);
      const bobDone = okJson(await w.complete(bobs.id, { [email]: 'bob@beta.test', [size]: '12' }, w.bobSession));
      assert.deepEqual([bobDone.formVersion, bobDone.formFields[size].answer], [2, '12']);

      // A third version: both completed responses keep theirs; the list shows each with its own.
      w.h.clock.advance(1000);
      const third = okJson(
        await w.edit({ description: 'Now shorter', formFields: [{ formFieldId: size, title: 'Size', type: 'number' }] }),
      );
      assert.deepEqual([third.version, third.formFieldIds, third.description], [3, [size], 'Now shorter']);
      const listed = okJson(await w.call('GET', `/v1/forms/${w.form.id}/form-responses`)).data;
      assert.deepEqual(
        listed.map((r: { id: string; formVersion: number; formName: string; formDescription: string; formFieldIds: string[] }) => [
          r.id,
          r.formVersion,
          r.formName,
          r.formDescription,
          r.formFieldIds,
        ]),
        [
          [bobs.id, 2, 'Intake 2', 'Tell us about you', [email, size]],
          [adas.id, 1, 'Intake', 'Tell us about you', [email, notes]],
        ],
      );
      assert.deepEqual(okJson(await w.call('GET', `/v1/form-responses/${bobs.id}`)), bobDone);

      const entries = await w.audit('formEdited');
      assert.deepEqual(
        entries.map((e) => [e.eventDescription, e.context, e.previousAttributes]),
        [
          [
            'Form "Intake 2" edited (version 3)',
            { formId: w.form.id, version: 3, previousVersion: 2 },
            { description: 'Tell us about you', formFields: edited.formFields },
          ],
          [
            'Form "Intake 2" edited (version 2)',
            { formId: w.form.id, version: 2, previousVersion: 1 },
            { name: 'Intake', formFields: w.form.formFields },
          ],
        ],
      );
      assert.deepEqual(JSON.parse(entries[0].data), third);
    });

    test('settings are not a version; an edit that changes nothing records nothing', async (t) => {
      const w = await world(t, backend);
      w.h.clock.advance(1000);
      const same = okJson(await w.edit({ name: 'Intake', formFields: w.form.formFields }));
      assert.deepEqual(same, w.form, 'nothing changed: the form as it is');
      const settings = okJson(await w.edit({ visibility: 'allClients', allowMultipleSubmissions: true }));
      assert.deepEqual(settings, { ...w.form, visibility: 'allClients', allowMultipleSubmissions: true, updatedAt: at(1000) });
      const [entry, ...more] = await w.audit('formEdited');
      assert.equal(more.length, 0);
      assert.deepEqual(
        [entry.eventDescription, entry.context, entry.previousAttributes],
        [
          'Form "Intake" edited',
          { formId: w.form.id, version: 1, previousVersion: 1 },
          { allowMultipleSubmissions: false, visibility: 'requestedClients' },
        ],
      );
      // Multiple submissions allowed from now on: the same client may be requested again.
      await w.request(w.ada.id, w.acme.id);
      await w.request(w.ada.id, w.acme.id);
    });

    test('bad input is a 400 naming the field, another workspace’s form a 404; nothing is written', async (t) => {
      const w = await world(t, backend);
      const [email, notes] = w.form.formFieldIds;
      assertProblems(await w.edit({}), ['body']);
      assertProblems(await w.edit({ name: '' }), ['body.name']);
      assertProblems(await w.edit({ formFields: [] }), ['body.formFields']);
      assertProblems(await w.edit({ formFields: [{ title: 'Q', type: 'essay' }] }), ['body.formFields.0.type']);
      assertProblems(await w.edit({ name: 'X', extra: 1 }), ['body.extra']);
      assertProblems(await w.edit({ visibility: 'everyone' }), ['body.visibility']);
      assertProblems(
        await w.edit({
          formFields: [
            { formFieldId: email, title: 'A', type: 'email' },
            { formFieldId: w.ada.id, title: 'B', type: 'email' },
            { formFieldId: email, title: 'C', type: 'email' },
            { formFieldId: notes, title: 'D', type: 'longAnswer' },
          ],
        }),
        [
          { path: 'body.formFields.1.formFieldId', message: 'is not a field of this form' },
          { path: 'body.formFields.2.formFieldId', message: 'names the field already kept at formFields.0' },
        ],
      );
      const other = await w.h.workspace('Other');
      const foreign = await w.edit({ name: 'Mine now' }, w.form.id, other.workspaceId);
      assert.deepEqual([foreign.statusCode, foreign.json()], [404, { code: 'not_found', message: 'Form not found.', data: null }]);
      const unknown = await w.edit({ name: 'X' }, w.ada.id);
      assert.deepEqual([unknown.statusCode, unknown.json().code], [404, 'not_found']);
      const foreignRead = await w.call('GET', `/v1/forms/${w.form.id}`, undefined, other.apiKey);
      assert.equal(foreignRead.statusCode, 404);
      assert.deepEqual(okJson(await w.call('GET', `/v1/forms/${w.form.id}`)), w.form);
      assert.deepEqual(await w.audit('formEdited'), []);
    });

    test('two edits of the fields at once: one wins, the other is a 409', async (t) => {
      const w = await world(t, backend);
      const answers = await Promise.all(
        ['A', 'B', 'C'].map((name) => w.edit({ name, formFields: [{ title: name, type: 'shortAnswer' }] })),
      );
      const statuses = answers.map((res) => res.statusCode).sort();
      assert.equal(statuses[0], 200, answers.map((res) => res.body).join('\n'));
      assert.ok(
        statuses.every((s) => s === 200 || s === 409),
        statuses.join(),
      );
      for (const res of answers.filter((r) => r.statusCode === 409)) assert.equal(res.json().code, 'conflict');
      const form = okJson(await w.call('GET', `/v1/forms/${w.form.id}`));
      assert.equal(form.version, 1 + statuses.filter((s) => s === 200).length);
      assert.equal((await w.audit('formEdited')).length, statuses.filter((s) => s === 200).length);
    });

    test('forms and responses made before versions: version 1, the responses read as before, an edit then keeps them', async (t) => {
      const url = await freshDatabaseUrl(t, backend, { sqliteFile: true });
      // A workspace's forms and responses, answered and pending, written by the service as it is…
      const w = await world(t, backend, url);
      const [email, notes] = w.form.formFieldIds;
      const adas = await w.request(w.ada.id, w.acme.id);
      const bobs = await w.request(w.bob.id, w.beta.id);
      const answered = okJson(await w.complete(adas.id, { [email]: 'ada@acme.test', [notes]: 'Hi' }, w.adaSession));
      // …taken back to the schema before versions (the migration undone), then migrated again.
      const database = openDatabase(url);
      // biome-ignore lint/suspicious/noExplicitAny: the schema as it was before the migration, not as typed today
      const db = database.db as Kysely<any>;
      await db.schema.dropTable('form_versions').execute();
      await db.schema.alterTable('forms').dropColumn('version').execute();
      await db.schema.alterTable('form_responses').dropColumn('form_version').execute();
      // The migration itself run again (later migrations stay applied: the migrator runs only new ones, in order).
      await MIGRATIONS['2026-11-28-04-form-versions'](database.dialect).up(db);
      await database.close();

      const h = await moduleHarness(t, backend, { databaseUrl: url });
      const get = async (path: string, key = w.ws.apiKey) => okJson(await h.as(key, { method: 'GET', url: path }));
      assert.deepEqual(await get(`/v1/forms/${w.form.id}`), { ...okJson(await w.call('GET', `/v1/forms/${w.form.id}`)), version: 1 });
      assert.deepEqual(await get(`/v1/form-responses/${adas.id}`), answered);
      assert.deepEqual(await get(`/v1/form-responses/${bobs.id}`), bobs);
      assert.deepEqual(await h.app.ctx.db.selectFrom('form_versions').select(['form_id', 'version', 'name', 'fields']).execute(), [
        { form_id: w.form.id, version: 1, name: 'Intake', fields: JSON.stringify(w.form.formFields) },
      ]);
      const edited = okJson(
        await adminRequest(h, 'PATCH', `/admin/workspaces/${w.ws.workspaceId}/forms/${w.form.id}`, {
          formFields: [{ title: 'Only question', type: 'shortAnswer' }],
        }),
      );
      assert.equal(edited.version, 2);
      assert.deepEqual(await get(`/v1/form-responses/${adas.id}`), answered, 'the answered response keeps version 1');
      assert.deepEqual((await get(`/v1/form-responses/${bobs.id}`)).formVersion, 2, 'the pending one answers the newest');
    });

    test('portal forms update: the admin route’s input, checked by the same schema; a new version', { timeout: 60_000 }, async (t) => {
      const url = await freshDatabaseUrl(t, backend, { sqliteFile: true });
      const run = async (...args: string[]) => portal(url, ...args, '--json');
      const ws = oneJson((await run('workspaces', 'create', '--name', 'Forms')).stdout);
      const W = ['--workspace', ws.workspaceId];
      const form = oneJson(
        (await run('forms', 'create', ...W, '--name', 'Intake', '--fields', '[{"title":"Size","type":"number"}]')).stdout,
      );
      const [size] = form.formFieldIds;
      const fields = JSON.stringify([
        { formFieldId: size, title: 'Team size', type: 'number', isRequired: true },
        { title: 'City', type: 'shortAnswer' },
      ]);
      const updated = await run(
        'forms',
        'update',
        ...W,
        '--form',
        form.id,
        '--name',
        'Intake 2',
        '--fields',
        fields,
        '--allow-multiple-submissions',
      );
      assert.equal(updated.code, 0, updated.stderr);
      const edited = oneJson(updated.stdout);
      assert.deepEqual(
        [
          edited.version,
          edited.name,
          edited.allowMultipleSubmissions,
          edited.formFields.map((f: { title: string }) => f.title),
          edited.formFieldIds[0],
        ],
        [2, 'Intake 2', true, ['Team size', 'City'], size],
      );
      const single = oneJson((await run('forms', 'update', ...W, '--form', form.id, '--single-submission')).stdout);
      assert.deepEqual([single.version, single.allowMultipleSubmissions], [2, false]);
      const bad = await run('forms', 'update', ...W, '--form', form.id, '--fields', '[{"formFieldId":"nope","title":"x","type":"number"}]');
      assert.notEqual(bad.code, 0);
      assert.deepEqual(oneJson(bad.stdout).error, {
        code: 'bad_request',
        message: 'body.formFields.0.formFieldId is not a field of this form',
      });
      const both = await run('forms', 'update', ...W, '--form', form.id, '--allow-multiple-submissions', '--single-submission');
      assert.equal(both.code, 2, both.stderr);
      const h = await harness(t, backend, { databaseUrl: url, webhooks: false, subscriptionPollMs: false });
      assert.deepEqual((await h.as(ws.apiKey, { method: 'GET', url: `/v1/forms/${form.id}` })).json(), single);
    });
  });
}
