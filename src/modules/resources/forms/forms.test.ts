import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { addClientCompany, adminRequest, createClient, limitedUserSession } from '../../../../test/helpers/factories.js';
import { oneJson, portal } from '../../../../test/helpers/cli.js';
import { BACKENDS, type Backend, NOON, freshDatabaseUrl, harness } from '../../../../test/helpers/harness.js';
import { assertProblems } from '../../../../test/helpers/problems.js';
import { acmeAndBeta, moduleHarness, okJson } from '../../../../test/helpers/world.js';

const AT = new Date(NOON).toISOString();

/** Acme Co (ada), Beta (bob); a form with a required e-mail and an optional note; a key-holder's calls; the audit log. */
async function world(t: Parameters<typeof moduleHarness>[0], backend: Backend) {
  const w = await acmeAndBeta(await moduleHarness(t, backend));
  const makeForm = async (body: object) => okJson(await adminRequest(w.h, 'POST', `/admin/workspaces/${w.ws.workspaceId}/forms`, body));
  const form = await makeForm({
    name: 'Intake',
    description: 'Tell us about you',
    formFields: [
      { title: 'E-mail', type: 'email', isRequired: true },
      { title: 'Notes', type: 'longAnswer', description: 'Anything else' },
    ],
  });
  const request = async (clientCompanyIds: object[], formId = form.id, key = w.ws.apiKey) =>
    okJson(await w.call('POST', '/v1/form-responses', { formId, clientCompanyIds }, key));
  const adaSession = await w.session({ clientId: w.client.id });
  return { ...w, makeForm, form, request, adaSession };
}

for (const backend of BACKENDS) {
  describe(`forms (SDK listForms … listFormResponses) [${backend}]`, () => {
    test('a form made on the admin surface: its shape, retrieved and listed; formCreated', async (t) => {
      const w = await world(t, backend);
      const [email, notes] = w.form.formFieldIds;
      assert.deepEqual(w.form, {
        id: w.form.id,
        object: 'form',
        name: 'Intake',
        description: 'Tell us about you',
        formFieldIds: [email, notes],
        formFields: [
          { formFieldId: email, title: 'E-mail', description: '', type: 'email', isRequired: true },
          { formFieldId: notes, title: 'Notes', description: 'Anything else', type: 'longAnswer', isRequired: false },
        ],
        allowMultipleSubmissions: false,
        visibility: 'requestedClients',
        formResponseRequests: 0,
        formResponseSubmissions: 0,
        version: 1,
        createdAt: AT,
        updatedAt: AT,
      });
      assert.deepEqual((await w.call('GET', `/v1/forms/${w.form.id}`)).json(), w.form);
      w.h.clock.advance(1000);
      const second = await w.makeForm({ name: 'Second', formFields: [{ title: 'Q', type: 'shortAnswer' }], visibility: 'allClients' });
      const page = (await w.call('GET', '/v1/forms?limit=1')).json();
      assert.deepEqual(page.data, [second]);
      assert.deepEqual((await w.call('GET', `/v1/forms?limit=1&nextToken=${encodeURIComponent(page.nextToken)}`)).json(), {
        data: [w.form],
      });
      assert.deepEqual((await w.audit('formCreated')).map((e) => e.context.formId).sort(), [w.form.id, second.id].sort());
      const bad = await adminRequest(w.h, 'POST', `/admin/workspaces/${w.ws.workspaceId}/forms`, {
        name: 'Bad',
        formFields: [{ title: 'Q', type: 'essay' }],
      });
      assertProblems(bad, ['body.formFields.0.type']);
      assertProblems(
        await adminRequest(w.h, 'POST', `/admin/workspaces/${w.ws.workspaceId}/forms`, { name: 'No fields', formFields: [] }),
        ['body.formFields'],
      );
    });

    test('requestFormResponse: a pending response per client, formAssigned each; the counts move; answers the first', async (t) => {
      const w = await world(t, backend);
      const first = await w.request([
        { clientId: w.ada.id, companyId: w.acme.id },
        { clientId: w.bob.id, companyId: w.beta.id },
      ]);
      const [email, notes] = w.form.formFieldIds;
      assert.deepEqual(first, {
        id: first.id,
        object: 'formResponse',
        formId: w.form.id,
        formName: 'Intake',
        formDescription: 'Tell us about you',
        formFieldIds: [email, notes],
        formFields: {
          [email]: { title: 'E-mail', description: '', type: 'email', isRequired: true },
          [notes]: { title: 'Notes', description: 'Anything else', type: 'longAnswer', isRequired: false },
        },
        allowMultipleSubmissions: false,
        visibility: 'requestedClients',
        clientId: w.ada.id,
        companyId: w.acme.id,
        status: 'pending',
        formVersion: 1,
        createdAt: AT,
        updatedAt: AT,
      });
      const listed = (await w.call('GET', `/v1/forms/${w.form.id}/form-responses`)).json().data;
      assert.deepEqual(listed.map((r: any) => r.clientId).sort(), [w.ada.id, w.bob.id].sort());
      assert.deepEqual((await w.call('GET', `/v1/form-responses/${first.id}`)).json(), first);
      const form = (await w.call('GET', `/v1/forms/${w.form.id}`)).json();
      assert.deepEqual([form.formResponseRequests, form.formResponseSubmissions, 'latestSubmissionDate' in form], [2, 0, false]);
      assert.deepEqual((await w.audit('formAssigned')).map((e) => e.context.clientId).sort(), [w.ada.id, w.bob.id].sort());
      // The deprecated clientIds: clients with one company.
      const multi = await w.makeForm({ name: 'Weekly', formFields: [{ title: 'Q', type: 'shortAnswer' }], allowMultipleSubmissions: true });
      const legacy = await w.call('POST', '/v1/form-responses', { formId: multi.id, clientIds: [w.bob.id] });
      assert.deepEqual([legacy.statusCode, legacy.json().companyId], [200, w.beta.id], legacy.body);
      assert.equal((await w.call('POST', '/v1/form-responses', { formId: multi.id, clientIds: [w.bob.id] })).statusCode, 200);
    });

    test('allowMultipleSubmissions false: a client is requested once (409, nothing written)', async (t) => {
      const w = await world(t, backend);
      await w.request([{ clientId: w.ada.id, companyId: w.acme.id }]);
      const again = await w.call('POST', '/v1/form-responses', {
        formId: w.form.id,
        clientCompanyIds: [
          { clientId: w.bob.id, companyId: w.beta.id },
          { clientId: w.ada.id, companyId: w.acme.id },
        ],
      });
      assert.deepEqual([again.statusCode, again.json().code], [409, 'conflict'], again.body);
      assert.equal((await w.call('GET', `/v1/forms/${w.form.id}/form-responses`)).json().data.length, 1);
      assert.equal((await w.audit('formAssigned')).length, 1);
    });

    test('allowMultipleSubmissions false under concurrency: of two requests at once for one client, one wins (the other 409)', async (t) => {
      const w = await world(t, backend);
      const payload = { formId: w.form.id, clientCompanyIds: [{ clientId: w.bob.id, companyId: w.beta.id }] };
      const answers = await Promise.all([1, 2, 3].map(() => w.call('POST', '/v1/form-responses', payload)));
      assert.deepEqual(answers.map((res) => res.statusCode).sort(), [200, 409, 409], answers.map((res) => res.body).join('\n'));
      assert.equal((await w.call('GET', `/v1/forms/${w.form.id}/form-responses`)).json().data.length, 1);
      assert.equal((await w.audit('formAssigned')).length, 1);
    });

    test('every input rule is a 400 naming its field, and nothing is written', async (t) => {
      const w = await world(t, backend);
      const other = await w.h.workspace('Other');
      const foreign = await createClient(w.h, other.apiKey, { email: 'f@o.test', givenName: 'F', familyName: 'O' });
      const post = (body: object) => w.call('POST', '/v1/form-responses', body);
      assertProblems(await post({}), ['body.formId']);
      assertProblems(await post({ formId: w.form.id }), ['body.clientCompanyIds']);
      assertProblems(await post({ formId: w.ada.id, clientCompanyIds: [{ clientId: w.ada.id, companyId: w.acme.id }] }), ['body.formId']);
      assertProblems(
        await post({
          formId: w.form.id,
          clientCompanyIds: [
            { clientId: foreign.id, companyId: w.acme.id },
            { clientId: w.ada.id, companyId: w.beta.id },
          ],
        }),
        ['body.clientCompanyIds.0.clientId', 'body.clientCompanyIds.1.companyId'],
      );
      assertProblems(await post({ formId: w.form.id, clientCompanyIds: [{ clientId: w.ada.id }] }), ['body.clientCompanyIds.0.companyId']);
      assertProblems(await post({ formId: w.form.id, clientIds: [foreign.id] }), ['body.clientIds.0']);
      assertProblems(await post({ formId: w.form.id, clientIds: [], extra: 1 }), ['body.extra', 'body.clientIds']);
      assertProblems(await w.call('GET', '/v1/form-responses?status=done'), ['query.status']);
      assert.deepEqual((await w.call('GET', '/v1/form-responses')).json(), { data: [] });
      assert.deepEqual(await w.audit('formAssigned'), []);
    });

    test('complete: by the requested client only, answers checked by type, once; formResponseCompleted; counts', async (t) => {
      const w = await world(t, backend);
      const response = await w.request([{ clientId: w.ada.id, companyId: w.acme.id }]);
      const [email, notes] = w.form.formFieldIds;
      const complete = (answers: object, key = w.adaSession) =>
        w.call('POST', `/v1/form-responses/${response.id}/complete`, { answers }, key);
      const byKey = await complete({ [email]: 'ada@acme.test' }, w.ws.apiKey);
      assert.deepEqual([byKey.statusCode, byKey.json().code], [403, 'forbidden']);
      assertProblems(await complete({}), [`body.answers.${email}`]);
      assertProblems(await complete({ [email]: 'not an address', nope: 'x' }), [`body.answers.${email}`, 'body.answers.nope']);
      assertProblems(await complete({ [email]: 7 }), [`body.answers.${email}`]);
      w.h.clock.advance(60_000);
      const later = new Date(NOON + 60_000).toISOString();
      const done = await complete({ [email]: 'ada@acme.test', [notes]: '' });
      assert.equal(done.statusCode, 200, done.body);
      assert.deepEqual(done.json(), {
        ...response,
        formFields: {
          [email]: { ...response.formFields[email], answer: 'ada@acme.test' },
          [notes]: response.formFields[notes],
        },
        status: 'completed',
        submissionDate: later,
        updatedAt: later,
      });
      assert.deepEqual((await w.call('GET', `/v1/form-responses/${response.id}`, undefined, w.adaSession)).json(), done.json());
      const again = await complete({ [email]: 'ada@acme.test' });
      assert.deepEqual([again.statusCode, again.json().code], [409, 'conflict']);
      const form = (await w.call('GET', `/v1/forms/${w.form.id}`)).json();
      assert.deepEqual([form.formResponseRequests, form.formResponseSubmissions, form.latestSubmissionDate], [1, 1, later]);
      assert.deepEqual(
        (await w.audit('formResponseCompleted')).map((e) => [e.context.formResponseId, e.actorId]),
        [[response.id, w.ada.id]],
      );
      assert.deepEqual(
        (await w.call('GET', '/v1/form-responses?status=completed')).json().data.map((r: any) => r.id),
        [response.id],
      );
    });

    test('a client session sees its own responses only, requests none (403) and sees no form (404)', async (t) => {
      const w = await world(t, backend);
      const mine = await w.request([{ clientId: w.ada.id, companyId: w.acme.id }]);
      const bobs = await w.request([{ clientId: w.bob.id, companyId: w.beta.id }]);
      const s = w.adaSession;
      assert.deepEqual(
        (await w.call('GET', '/v1/form-responses', undefined, s)).json().data.map((r: any) => r.id),
        [mine.id],
      );
      const hidden = await w.call('GET', `/v1/form-responses/${bobs.id}`, undefined, s);
      assert.deepEqual([hidden.statusCode, hidden.json().code], [404, 'not_found']);
      const other = await w.call('POST', `/v1/form-responses/${bobs.id}/complete`, { answers: {} }, s);
      assert.deepEqual([other.statusCode, other.json().code], [404, 'not_found']);
      const write = await w.call('POST', '/v1/form-responses', { formId: w.form.id, clientIds: [w.ada.id] }, s);
      assert.deepEqual([write.statusCode, write.json().code], [403, 'forbidden']);
      for (const url of ['/v1/forms', `/v1/forms/${w.form.id}`, `/v1/forms/${w.form.id}/form-responses`]) {
        assert.equal((await w.call('GET', url, undefined, s)).statusCode, 404, url);
      }
    });

    test('an internal user limited to Beta sees Beta’s responses and requests only of Beta’s clients', async (t) => {
      const w = await world(t, backend);
      const acme = await w.request([{ clientId: w.ada.id, companyId: w.acme.id }]);
      const { session } = await limitedUserSession(w.h, w.ws.workspaceId, w.app.apiKey, [w.beta.id], 'lim@beta.test');
      const beta = await w.request([{ clientId: w.bob.id, companyId: w.beta.id }], w.form.id, session);
      const list = (await w.call('GET', `/v1/forms/${w.form.id}/form-responses`, undefined, session)).json().data;
      assert.deepEqual(
        list.map((r: any) => r.id),
        [beta.id],
      );
      assert.equal((await w.call('GET', `/v1/form-responses/${acme.id}`, undefined, session)).statusCode, 404);
      assertProblems(await w.call('POST', '/v1/form-responses', { formId: w.form.id, clientIds: [w.ada.id] }, session), [
        'body.clientIds.0',
      ]);
      assert.equal((await w.call('GET', `/v1/forms/${w.form.id}`, undefined, session)).json().formResponseRequests, 2);
    });

    test('another workspace’s forms and responses are absent: 404 on read and change; its lists empty', async (t) => {
      const w = await world(t, backend);
      const response = await w.request([{ clientId: w.ada.id, companyId: w.acme.id }]);
      const other = await w.h.workspace('Other');
      for (const [method, url, body] of [
        ['GET', `/v1/forms/${w.form.id}`],
        ['GET', `/v1/forms/${w.form.id}/form-responses`],
        ['GET', `/v1/form-responses/${response.id}`],
        ['POST', `/v1/form-responses/${response.id}/complete`, { answers: {} }],
      ] as const) {
        const res = await w.call(method, url, body, other.apiKey);
        assert.deepEqual([res.statusCode, res.json().code], [404, 'not_found'], `${method} ${url}`);
      }
      assert.deepEqual((await w.call('GET', '/v1/forms', undefined, other.apiKey)).json(), { data: [] });
      assert.deepEqual((await w.call('GET', '/v1/form-responses', undefined, other.apiKey)).json(), { data: [] });
      assertProblems(await w.call('POST', '/v1/form-responses', { formId: w.form.id, clientIds: [w.ada.id] }, other.apiKey), [
        'body.formId',
        'body.clientIds.0',
      ]);
    });

    test('a client of two companies: named with its company; the deprecated clientIds cannot choose one (400)', async (t) => {
      const w = await world(t, backend);
      await addClientCompany(w.h, w.ws.workspaceId, w.ada, w.beta.id);
      assertProblems(await w.call('POST', '/v1/form-responses', { formId: w.form.id, clientIds: [w.ada.id] }), ['body.clientIds.0']);
      const inBeta = await w.request([{ clientId: w.ada.id, companyId: w.beta.id }]);
      assert.deepEqual([inBeta.clientId, inBeta.companyId], [w.ada.id, w.beta.id]);
      const s = w.adaSession;
      assert.deepEqual(
        (await w.call('GET', '/v1/form-responses', undefined, s)).json().data.map((r: { id: string }) => r.id),
        [inBeta.id],
        'the client sees its responses in each of its companies',
      );
    });

    test('a deleted client takes its responses with it', async (t) => {
      const w = await world(t, backend);
      await w.request([{ clientId: w.bob.id, companyId: w.beta.id }]);
      assert.equal((await w.call('DELETE' as 'GET', `/v1/clients/${w.bob.id}`)).statusCode, 200);
      assert.deepEqual((await w.call('GET', `/v1/forms/${w.form.id}/form-responses`)).json(), { data: [] });
    });

    test('portal forms create: the admin route’s input, checked by the same schema; the API then serves it', {
      timeout: 60_000,
    }, async (t) => {
      const url = await freshDatabaseUrl(t, backend, { sqliteFile: true });
      const run = async (...args: string[]) => portal(url, ...args, '--json');
      const ws = oneJson((await run('workspaces', 'create', '--name', 'Forms')).stdout);
      const W = ['--workspace', ws.workspaceId];
      const fields = '[{"title":"Company size","type":"number","isRequired":true}]';
      const made = await run('forms', 'create', ...W, '--name', 'Intake', '--fields', fields, '--allow-multiple-submissions');
      assert.equal(made.code, 0, made.stderr);
      const form = oneJson(made.stdout);
      assert.deepEqual(
        [form.object, form.name, form.allowMultipleSubmissions, form.formFields.map((f: { title: string }) => f.title)],
        ['form', 'Intake', true, ['Company size']],
      );
      const bad = await run('forms', 'create', ...W, '--name', 'Bad', '--fields', '[{"title":"x"}]');
      assert.notEqual(bad.code, 0);
      assert.equal(oneJson(bad.stdout).error.code, 'bad_request');
      const unparsable = await run('forms', 'create', ...W, '--name', 'Bad', '--fields', '[');
      assert.equal(unparsable.code, 2, unparsable.stderr);
      const h = await harness(t, backend, { databaseUrl: url, webhooks: false, subscriptionPollMs: false });
      assert.deepEqual((await h.as(ws.apiKey, { method: 'GET', url: '/v1/forms' })).json(), { data: [form] });
    });
  });
}
