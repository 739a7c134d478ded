// A client's things in every section, made with the workspace's key, for the staff journeys that look for them
// (test/portal-staff-view.test.ts, test/portal-staff-client-tabs.test.ts): each item's name says whose it is.
import assert from 'node:assert/strict';
import type { newWorkspace } from './portal-pages.js';

type Workspace = Awaited<ReturnType<typeof newWorkspace>>;

export interface ClientWorld {
  company: { id: string; name: string };
  client: { id: string; name: string };
  channelId: string;
  fileChannelId: string;
  invoiceId: string;
  taskId: string;
  formResponseId: string;
  contractId: string;
}

/**
 * One company, its client, and the client's conversation (with a message), file, invoice, task, form response and
 * contract; with `reportsId` (an install) also a link of that app for the company.
 */
export async function clientWorld(
  ws: Workspace,
  shared: { formId: string; templateId: string; reportsId?: string },
  company: string,
  person: { givenName: string; familyName: string; email: string },
): Promise<ClientWorld> {
  const companyId = (await ws.call<{ id: string }>('POST', '/v1/companies', { name: company })).id;
  const clientId = (await ws.call<{ id: string }>('POST', '/v1/clients', { ...person, companyId })).id;
  const channel = await ws.call<{ id: string }>('POST', '/v1/message-channels', { membershipType: 'individual', clientId });
  await ws.call('POST', '/v1/messages', { channelId: channel.id, senderId: clientId, text: `Hello from ${company}.` });
  const files = await ws.call<{ id: string }>('POST', '/v1/channels/files', { membershipType: 'individual', clientId });
  const file = await ws.call<{ uploadUrl: string }>('POST', '/v1/files/file', { channelId: files.id, path: `${company} brief.txt` });
  const uploaded = await fetch(file.uploadUrl, { method: 'PUT', headers: { 'content-type': 'text/plain' }, body: `${company}'s brief` });
  assert.equal(uploaded.status, 200, await uploaded.text());
  const invoice = await ws.call<{ id: string }>('POST', '/v1/invoices', {
    clientId,
    lineItems: [{ amount: 12_000, quantity: 1, description: `${company} retainer` }],
    daysUntilDue: 14,
  });
  const task = await ws.call<{ id: string }>('POST', '/v1/tasks', { name: `${company}: send the W-9`, clientId });
  const response = await ws.call<{ id: string }>('POST', '/v1/form-responses', {
    formId: shared.formId,
    clientCompanyIds: [{ clientId, companyId }],
  });
  const contract = await ws.call<{ id: string }>('POST', '/v1/contracts', { contractTemplateId: shared.templateId, clientId });
  if (shared.reportsId) {
    await ws.call('POST', `/v1/installs/${shared.reportsId}/connections`, {
      type: 'link',
      content: `https://${company.toLowerCase()}.reports.example/`,
      companyId,
    });
  }
  return {
    company: { id: companyId, name: company },
    client: { id: clientId, name: `${person.givenName} ${person.familyName}` },
    channelId: channel.id,
    fileChannelId: files.id,
    invoiceId: invoice.id,
    taskId: task.id,
    formResponseId: response.id,
    contractId: contract.id,
  };
}
