import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { addClientCompany, adminRequest, createClient, limitedUserSession } from '../../../../test/helpers/factories.js';
import { oneJson, portal } from '../../../../test/helpers/cli.js';
import { BACKENDS, type Backend, NOON, freshDatabaseUrl, harness } from '../../../../test/helpers/harness.js';
import { assertProblems } from '../../../../test/helpers/problems.js';
import { acmeAndBeta, moduleHarness, okJson } from '../../../../test/helpers/world.js';

const AT = new Date(NOON).toISOString();

const NDA_FIELDS = [
  { id: 'fee', type: 'text', inputType: 'variable', label: 'Fee' },
  { id: 'ref', type: 'text', inputType: 'variable', isOptional: true },
  { id: 'firm', type: 'text', inputType: 'fixed', value: 'Acme LLP', page: 2 },
  { id: 'sig', type: 'signature', inputType: 'client', page: 2 },
  { id: 'signedOn', type: 'date', inputType: 'client', page: 2 },
  { id: 'note', type: 'text', inputType: 'client', isOptional: true, page: 2 },
];

/** Acme Co (ada), Beta (bob); an NDA template; a key-holder's calls; ada's session; the audit log. */
async function world(t: Parameters<typeof moduleHarness>[0], backend: Backend) {
  const w = await acmeAndBeta(await moduleHarness(t, backend));
  const makeTemplate = async (body: object) =>
    okJson(await adminRequest(w.h, 'POST', `/admin/workspaces/${w.ws.workspaceId}/contract-templates`, body));
  const nda = await makeTemplate({ name: 'NDA', fileUrl: 'https://files.acme.test/nda.pdf', fields: NDA_FIELDS });
  const send = async (body: object, key = w.ws.apiKey) =>
    okJson(await w.call('POST', '/v1/contracts', { contractTemplateId: nda.id, variableValues: { fee: '$100' }, ...body }, key));
  const adaSession = await w.session({ clientId: w.client.id });
  return { ...w, makeTemplate, nda, send, adaSession };
}

for (const backend of BACKENDS) {
  describe(`contracts (SDK listContractTemplates … retrieveContract) [${backend}]`, () => {
    test('a template made on the admin surface: its shape, listed (filter name) and retrieved; field rules', async (t) => {
      const w = await world(t, backend);
      assert.deepEqual(w.nda, {
        id: w.nda.id,
        object: 'contractTemplate',
        name: 'NDA',
        fileUrl: 'https://files.acme.test/nda.pdf',
        fields: [
          { id: 'fee', type: 'text', inputType: 'variable', isOptional: false, page: 1, label: 'Fee' },
          { id: 'ref', type: 'text', inputType: 'variable', isOptional: true, page: 1 },
          { id: 'firm', type: 'text', inputType: 'fixed', isOptional: false, page: 2, value: 'Acme LLP' },
          { id: 'sig', type: 'signature', inputType: 'client', isOptional: false, page: 2 },
          { id: 'signedOn', type: 'date', inputType: 'client', isOptional: false, page: 2 },
          { id: 'note', type: 'text', inputType: 'client', isOptional: true, page: 2 },
        ],
        requestsCount: 0,
        submissionsCount: 0,
        createdAt: AT,
        updatedAt: AT,
      });
      w.h.clock.advance(1000);
      const other = await w.makeTemplate({ name: 'Engagement', fields: [{ type: 'initials', inputType: 'client' }] });
      assert.match(other.fields[0].id, /^[0-9a-f-]{36}$/);
      assert.equal('fileUrl' in other, false);
      const page = (await w.call('GET', '/v1/contract-templates?limit=1')).json();
      assert.deepEqual(page.data, [other]);
      assert.deepEqual((await w.call('GET', `/v1/contract-templates?limit=1&nextToken=${encodeURIComponent(page.nextToken)}`)).json(), {
        data: [w.nda],
      });
      assert.deepEqual((await w.call('GET', '/v1/contract-templates?name=NDA')).json(), { data: [w.nda] });
      assert.deepEqual((await w.call('GET', `/v1/contract-templates/${w.nda.id}`)).json(), w.nda);
      const bad = await adminRequest(w.h, 'POST', `/admin/workspaces/${w.ws.workspaceId}/contract-templates`, {
        name: 'Bad',
        fields: [
          { id: 'a', type: 'text', inputType: 'fixed' },
          { id: 'a', type: 'text', inputType: 'client', value: 'x' },
        ],
      });
      assertProblems(bad, ['body.fields.0.value', 'body.fields.1.id', 'body.fields.1.value']);
      const badType = await adminRequest(w.h, 'POST', `/admin/workspaces/${w.ws.workspaceId}/contract-templates`, {
        name: 'Bad',
        fields: [{ type: 'stamp', inputType: 'client' }],
        fileUrl: 'ftp://x',
      });
      assertProblems(badType, ['body.fileUrl', 'body.fields.0.type']);
    });

    test('sendContract: variable values filled (object or JSON text), the client’s company derived; contractRequested', async (t) => {
      const w = await world(t, backend);
      const contract = await w.send({ clientId: w.ada.id });
      const fields = w.nda.fields.map((f: { id: string }) => (f.id === 'fee' ? { ...f, value: '$100' } : f));
      assert.deepEqual(contract, {
        id: contract.id,
        object: 'contract',
        contractTemplateId: w.nda.id,
        name: 'NDA',
        fields,
        fileUrl: 'https://files.acme.test/nda.pdf',
        clientId: w.ada.id,
        recipientId: w.ada.id,
        companyId: w.acme.id,
        status: 'pending',
        shareDate: AT,
        createdAt: AT,
        updatedAt: AT,
      });
      assert.deepEqual((await w.call('GET', `/v1/contracts/${contract.id}`)).json(), contract);
      const text = await w.send({ recipientId: w.bob.id, companyId: w.beta.id, variableValues: '{"fee":"$5","ref":"R-1"}' });
      assert.deepEqual(
        [text.clientId, text.companyId, text.fields.find((f: { id: string }) => f.id === 'ref').value],
        [w.bob.id, w.beta.id, 'R-1'],
      );
      assert.deepEqual((await w.audit('contractRequested')).map((e) => e.context.contractId).sort(), [contract.id, text.id].sort());
      const template = (await w.call('GET', `/v1/contract-templates/${w.nda.id}`)).json();
      assert.deepEqual([template.requestsCount, template.submissionsCount], [2, 0]);
    });

    test('every send rule is a 400 naming its field, and nothing is written', async (t) => {
      const w = await world(t, backend);
      const other = await w.h.workspace('Other');
      const foreign = await createClient(w.h, other.apiKey, { email: 'f@o.test', givenName: 'F', familyName: 'O' });
      const post = (body: object) => w.call('POST', '/v1/contracts', body);
      assertProblems(await post({}), ['body.contractTemplateId']);
      assertProblems(await post({ contractTemplateId: w.nda.id, variableValues: { fee: '1' } }), ['body.clientId']);
      assertProblems(await post({ contractTemplateId: w.ada.id, clientId: w.ada.id }), ['body.contractTemplateId']);
      assertProblems(await post({ contractTemplateId: w.nda.id, clientId: foreign.id, variableValues: { fee: '1' } }), ['body.clientId']);
      assertProblems(await post({ contractTemplateId: w.nda.id, clientId: w.ada.id, companyId: w.beta.id, variableValues: { fee: '1' } }), [
        'body.clientId',
      ]);
      assertProblems(await post({ contractTemplateId: w.nda.id, clientId: w.ada.id }), ['body.variableValues.fee']);
      assertProblems(await post({ contractTemplateId: w.nda.id, clientId: w.ada.id, variableValues: { fee: '1', sig: 'x', nope: 'y' } }), [
        'body.variableValues.sig',
        'body.variableValues.nope',
      ]);
      assertProblems(await post({ contractTemplateId: w.nda.id, clientId: w.ada.id, variableValues: '{"fee":' }), [
        'body.variableValues',
        'body.variableValues.fee',
      ]);
      assertProblems(await post({ contractTemplateId: w.nda.id, clientId: w.ada.id, variableValues: { fee: 1 } }), [
        'body.variableValues',
        'body.variableValues.fee',
        'body.variableValues',
      ]);
      assertProblems(await w.call('GET', '/v1/contracts?status=done'), ['query.status']);
      assert.deepEqual((await w.call('GET', '/v1/contracts')).json(), { data: [] });
      assert.deepEqual(await w.audit('contractRequested'), []);
    });

    test('list: newest first, paged, each SDK filter (the SDK’s empty ones are none)', async (t) => {
      const w = await world(t, backend);
      const first = await w.send({ clientId: w.ada.id });
      w.h.clock.advance(1000);
      const other = await w.makeTemplate({ name: 'Engagement', fields: [{ type: 'initials', inputType: 'client' }] });
      const second = await w.send({ clientId: w.bob.id, contractTemplateId: other.id, variableValues: undefined });
      const ids = async (query: string) => (await w.call('GET', `/v1/contracts${query}`)).json().data.map((c: any) => c.id);
      assert.deepEqual(await ids(''), [second.id, first.id]);
      const page = (await w.call('GET', '/v1/contracts?limit=1')).json();
      assert.deepEqual((await w.call('GET', `/v1/contracts?limit=1&nextToken=${encodeURIComponent(page.nextToken)}`)).json(), {
        data: [first],
      });
      assert.deepEqual(await ids(`?contractTemplateId=${other.id}`), [second.id]);
      assert.deepEqual(await ids(`?clientId=${w.ada.id}`), [first.id]);
      assert.deepEqual(await ids(`?recipientId=${w.bob.id}`), [second.id]);
      assert.deepEqual(await ids('?status=pending&recipientId=&clientId='), [second.id, first.id]);
      assert.deepEqual(await ids('?status=signed'), []);
    });

    test('sign: by its client only, each client field checked, once; contractCompleted; the template’s counts', async (t) => {
      const w = await world(t, backend);
      const contract = await w.send({ clientId: w.ada.id });
      const sign = (values: object, key = w.adaSession) => w.call('POST', `/v1/contracts/${contract.id}/sign`, { values }, key);
      const byKey = await sign({ sig: 'Ada L', signedOn: '2026-11-25' }, w.ws.apiKey);
      assert.deepEqual([byKey.statusCode, byKey.json().code], [403, 'forbidden']);
      assertProblems(await sign({}), ['body.values.sig', 'body.values.signedOn']);
      assertProblems(await sign({ sig: ' ', signedOn: '2026-02-30', fee: '0' }), [
        'body.values.sig',
        'body.values.signedOn',
        'body.values.fee',
      ]);
      w.h.clock.advance(60_000);
      const later = new Date(NOON + 60_000).toISOString();
      const signed = await sign({ sig: 'Ada L', signedOn: '2026-11-25' });
      assert.equal(signed.statusCode, 200, signed.body);
      assert.deepEqual(signed.json(), {
        ...contract,
        fields: contract.fields.map((f: { id: string }) =>
          f.id === 'sig' ? { ...f, value: 'Ada L' } : f.id === 'signedOn' ? { ...f, value: '2026-11-25' } : f,
        ),
        status: 'signed',
        submissionDate: later,
        updatedAt: later,
      });
      assert.deepEqual((await w.call('GET', `/v1/contracts/${contract.id}`, undefined, w.adaSession)).json(), signed.json());
      const again = await sign({ sig: 'Ada L', signedOn: '2026-11-25' });
      assert.deepEqual([again.statusCode, again.json().code], [409, 'conflict']);
      assert.deepEqual(
        (await w.audit('contractCompleted')).map((e) => [e.context.contractId, e.actorId]),
        [[contract.id, w.ada.id]],
      );
      const template = (await w.call('GET', `/v1/contract-templates/${w.nda.id}`)).json();
      assert.deepEqual([template.requestsCount, template.submissionsCount, template.latestSubmissionDate], [1, 1, later]);
    });

    test('a client session sees its own contracts only, sends none (403) and sees no template (404)', async (t) => {
      const w = await world(t, backend);
      const mine = await w.send({ clientId: w.ada.id });
      const bobs = await w.send({ clientId: w.bob.id });
      const s = w.adaSession;
      assert.deepEqual(
        (await w.call('GET', '/v1/contracts', undefined, s)).json().data.map((c: any) => c.id),
        [mine.id],
      );
      for (const [method, url, body] of [
        ['GET', `/v1/contracts/${bobs.id}`],
        ['POST', `/v1/contracts/${bobs.id}/sign`, { values: {} }],
        ['GET', '/v1/contract-templates'],
        ['GET', `/v1/contract-templates/${w.nda.id}`],
      ] as const) {
        const res = await w.call(method, url, body, s);
        assert.deepEqual([res.statusCode, res.json().code], [404, 'not_found'], `${method} ${url}`);
      }
      const write = await w.call('POST', '/v1/contracts', { contractTemplateId: w.nda.id, clientId: w.ada.id }, s);
      assert.deepEqual([write.statusCode, write.json().code], [403, 'forbidden']);
    });

    test('an internal user limited to Beta sees Beta’s contracts and sends only to Beta’s clients', async (t) => {
      const w = await world(t, backend);
      const acme = await w.send({ clientId: w.ada.id });
      const { session } = await limitedUserSession(w.h, w.ws.workspaceId, w.app.apiKey, [w.beta.id], 'lim@beta.test');
      const beta = await w.send({ clientId: w.bob.id }, session);
      assert.deepEqual(
        (await w.call('GET', '/v1/contracts', undefined, session)).json().data.map((c: any) => c.id),
        [beta.id],
      );
      assert.equal((await w.call('GET', `/v1/contracts/${acme.id}`, undefined, session)).statusCode, 404);
      assertProblems(
        await w.call('POST', '/v1/contracts', { contractTemplateId: w.nda.id, clientId: w.ada.id, variableValues: { fee: '1' } }, session),
        ['body.clientId'],
      );
    });

    test('another workspace’s templates and contracts are absent: 404 on read and change; its lists empty', async (t) => {
      const w = await world(t, backend);
      const contract = await w.send({ clientId: w.ada.id });
      const other = await w.h.workspace('Other');
      for (const [method, url, body] of [
        ['GET', `/v1/contract-templates/${w.nda.id}`],
        ['GET', `/v1/contracts/${contract.id}`],
        ['POST', `/v1/contracts/${contract.id}/sign`, { values: {} }],
      ] as const) {
        const res = await w.call(method, url, body, other.apiKey);
        assert.deepEqual([res.statusCode, res.json().code], [404, 'not_found'], `${method} ${url}`);
      }
      assert.deepEqual((await w.call('GET', '/v1/contracts', undefined, other.apiKey)).json(), { data: [] });
      assert.deepEqual((await w.call('GET', '/v1/contract-templates', undefined, other.apiKey)).json(), { data: [] });
      assertProblems(await w.call('POST', '/v1/contracts', { contractTemplateId: w.nda.id, clientId: w.ada.id }, other.apiKey), [
        'body.clientId',
        'body.contractTemplateId',
      ]);
    });

    test('a client of two companies: companyId is required and chooses the contract’s company', async (t) => {
      const w = await world(t, backend);
      await addClientCompany(w.h, w.ws.workspaceId, w.ada, w.beta.id);
      assertProblems(
        await w.call('POST', '/v1/contracts', { contractTemplateId: w.nda.id, clientId: w.ada.id, variableValues: { fee: '1' } }),
        ['body.companyId'],
      );
      const inBeta = await w.send({ clientId: w.ada.id, companyId: w.beta.id });
      assert.deepEqual([inBeta.clientId, inBeta.companyId], [w.ada.id, w.beta.id]);
    });

    test('portal contract-templates create: the admin route’s input, checked by the same schema; the API then serves it', {
      timeout: 60_000,
    }, async (t) => {
      const url = await freshDatabaseUrl(t, backend, { sqliteFile: true });
      const run = async (...args: string[]) => portal(url, ...args, '--json');
      const ws = oneJson((await run('workspaces', 'create', '--name', 'Contracts')).stdout);
      const W = ['--workspace', ws.workspaceId];
      const fields = '[{"id":"sig","type":"signature","inputType":"client"}]';
      const made = await run(
        'contract-templates',
        'create',
        ...W,
        '--name',
        'NDA',
        '--fields',
        fields,
        '--file-url',
        'https://x.test/a.pdf',
      );
      assert.equal(made.code, 0, made.stderr);
      const template = oneJson(made.stdout);
      assert.deepEqual(
        [template.object, template.name, template.fileUrl, template.fields.map((f: { id: string }) => f.id)],
        ['contractTemplate', 'NDA', 'https://x.test/a.pdf', ['sig']],
      );
      const bad = await run('contract-templates', 'create', ...W, '--name', 'Bad', '--fields', '[{"type":"text","inputType":"fixed"}]');
      assert.notEqual(bad.code, 0);
      assert.equal(oneJson(bad.stdout).error.code, 'bad_request');
      const unparsable = await run('contract-templates', 'create', ...W, '--name', 'Bad', '--fields', '[');
      assert.equal(unparsable.code, 2, unparsable.stderr);
      const h = await harness(t, backend, { databaseUrl: url, webhooks: false, subscriptionPollMs: false });
      assert.deepEqual((await h.as(ws.apiKey, { method: 'GET', url: '/v1/contract-templates' })).json(), { data: [template] });
    });
  });
}
