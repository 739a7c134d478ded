// The official SDK (its DefaultService methods, their paths, queries and bodies) against a listening server,
// through a session token as an app gets it: every form and contract operation it has is served, and each
// answer holds to the type the SDK declares (test/helpers/sdk-types.ts reads them from its .d.ts).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { adminRequest, createClient, createCompany, createTestInternalUser, mintSession } from '../../../../test/helpers/factories.js';
import { BACKENDS, adminHarness } from '../../../../test/helpers/harness.js';
import { departures, sdkOperations } from '../../../../test/helpers/sdk-types.js';

for (const backend of BACKENDS) {
  describe(`forms and contracts through the official SDK [${backend}]`, () => {
    test('listForms, retrieveForm, requestFormResponse, listFormResponses, listContractTemplates, retrieveContractTemplate, sendContract, listContracts, retrieveContract', async (t) => {
      const declared = sdkOperations();
      const h = await adminHarness(t, backend, { webhooks: false, subscriptionPollMs: false });
      const ws = await h.workspace('Sdk');
      const app = await h.appKey(ws.workspaceId, 'sdk-forms-app');
      const company = await createCompany(h, ws.apiKey, { name: 'Sdk Co' });
      const client = await createClient(h, ws.apiKey, { email: 'sdk@sdk.test', givenName: 'S', familyName: 'D', companyId: company.id });
      const staff = await createTestInternalUser(h, ws.workspaceId, { email: 'staff@sdk.test', givenName: 'St', familyName: 'Aff' });
      const form = (
        await adminRequest(h, 'POST', `/admin/workspaces/${ws.workspaceId}/forms`, {
          name: 'Intake',
          formFields: [{ title: 'Company size', type: 'number', isRequired: true }],
        })
      ).json();
      const template = (
        await adminRequest(h, 'POST', `/admin/workspaces/${ws.workspaceId}/contract-templates`, {
          name: 'NDA',
          fields: [
            { id: 'fee', type: 'text', inputType: 'variable' },
            { id: 'sig', type: 'signature', inputType: 'client' },
          ],
        })
      ).json();
      await h.app.listen({ port: 0, host: '127.0.0.1' });
      const address = h.app.server.address();
      assert.ok(address && typeof address === 'object');
      const { assemblyApi, OpenAPI } = await import('@assembly-js/node-sdk');
      /** The SDK as the app acting for one end user: the session token decrypted with the app key, as the SDK does. */
      const sdkFor = async (body: { clientId?: string; internalUserId?: string }) => {
        const { token } = await mintSession(h, ws.workspaceId, { apiKey: app.apiKey, ...body });
        const sdk = assemblyApi({ apiKey: app.apiKey, token });
        OpenAPI.BASE = `http://127.0.0.1:${address.port}`; // the token's baseUrl names the configured PORTAL_URL, not this test's port
        return sdk;
      };

      // biome-ignore lint/suspicious/noExplicitAny: an answer of the SDK, checked against its declared shape
      const call = async (operation: string, send: () => PromiseLike<unknown>): Promise<Record<string, any>> => {
        const shape = declared.get(operation);
        assert.ok(shape, `${operation} is an operation of the SDK`);
        const answer = await send();
        assert.deepEqual(departures(answer, shape, new Set()), [], `${operation}: ${JSON.stringify(answer).slice(0, 500)}`);
        return answer as Record<string, unknown>;
      };

      const sdk = await sdkFor({ internalUserId: staff.id });
      assert.deepEqual((await call('listForms', () => sdk.listForms({}))).data, [form]);
      assert.deepEqual(await call('retrieveForm', () => sdk.retrieveForm({ id: form.id })), form);
      const response = await call('requestFormResponse', () =>
        sdk.requestFormResponse({ requestBody: { formId: form.id, clientCompanyIds: [{ clientId: client.id, companyId: company.id }] } }),
      );
      assert.deepEqual(
        [response.object, response.status, response.clientId, response.formName],
        ['formResponse', 'pending', client.id, 'Intake'],
      );
      assert.deepEqual(await call('listFormResponses', () => sdk.listFormResponses({ id: form.id })), { data: [response] });

      assert.deepEqual((await call('listContractTemplates', () => sdk.listContractTemplates({}))).data, [template]);
      assert.deepEqual((await call('listContractTemplates', () => sdk.listContractTemplates({ name: 'Other' }))).data, []);
      assert.deepEqual(await call('retrieveContractTemplate', () => sdk.retrieveContractTemplate({ id: template.id })), template);
      const contract = await call('sendContract', () =>
        sdk.sendContract({ requestBody: { contractTemplateId: template.id, clientId: client.id, variableValues: '{"fee":"$100"}' } }),
      );
      assert.deepEqual(
        [contract.object, contract.status, contract.recipientId, contract.fields[0].value],
        ['contract', 'pending', client.id, '$100'],
      );
      assert.deepEqual(
        await call('listContracts', () => sdk.listContracts({})),
        { data: [contract] },
        'the SDK sends recipientId= and clientId=',
      );
      assert.deepEqual(await call('retrieveContract', () => sdk.retrieveContract({ id: contract.id })), contract);
      await assert.rejects(
        sdk.sendContract({ requestBody: { contractTemplateId: template.id, clientId: client.id } }),
        (error: { status: number; body: { data: { path: string }[] } }) => {
          assert.equal(error.status, 400);
          assert.deepEqual(
            error.body.data.map((p) => p.path),
            ['body.variableValues.fee'],
          );
          return true;
        },
      );

      // The client's own session: it reads its contract, and may not send one (403).
      const asClient = await sdkFor({ clientId: client.id });
      assert.deepEqual(await call('listContracts', () => asClient.listContracts({ status: 'pending' })), { data: [contract] });
      assert.deepEqual(await call('retrieveContract', () => asClient.retrieveContract({ id: contract.id })), contract);
      await assert.rejects(
        asClient.sendContract({ requestBody: { contractTemplateId: template.id, clientId: client.id, variableValues: '{"fee":"1"}' } }),
        (error: { status: number }) => error.status === 403,
      );
      await assert.rejects(asClient.listForms({}), (error: { status: number }) => error.status === 404);
    });
  });
}
