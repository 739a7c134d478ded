// Rule (issue 44, point 5): the portal's work sections in a real browser, one client of a company signed in for the
// whole file (one server, one browser). Tasks: the workspace assigns tasks to the client and its company; the client
// finds them counted on the home page, filters them, marks one done from the list and another on its page with the
// keyboard, then reopens it. Forms: the workspace asks a form of every field type; the client sends an answer the
// server refuses (its message beside the field), then valid answers, and reads them back. Contracts: the workspace
// sends one; the client reads its details, signs it by typing and downloads the signed PDF (200 application/pdf).
// Each page at 320 px and 1280 px (test/artifacts/portal-<section>-<page>-<width>.png), axe clean, nothing from
// another origin.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { WAIT_MS } from './helpers/browser.js';
import {
  ADMIN_TOKEN,
  type PortalServer,
  type Visit,
  arrived,
  assertSameOrigin,
  checkPage,
  newWorkspace,
  signedInClient,
  startPortal,
  visit,
} from './helpers/portal-pages.js';

let portal: PortalServer;
let ws: Awaited<ReturnType<typeof newWorkspace>>;
let v: Visit;
let companyId: string;
let clientId: string;

before(async () => {
  portal = await startPortal();
  ws = await newWorkspace(portal);
  companyId = (await ws.call<{ id: string }>('POST', '/v1/companies', { name: 'Hopper & Co' })).id;
  v = await visit(portal, 320);
  clientId = await signedInClient(ws, v, { email: 'grace@hopper.test', givenName: 'Grace', familyName: 'Hopper', companyId });
});

after(async () => {
  if (v) assertSameOrigin(portal, v);
  await v?.context.close();
  await portal?.close();
});

/** A workspace-wide call on the admin surface (forms and contract templates are made there). */
async function admin<T>(path: string, body: unknown): Promise<T> {
  const answer = await portal.http<T>(
    'POST',
    `/admin/workspaces/${ws.workspaceId}${path}`,
    { authorization: `Bearer ${ADMIN_TOKEN}` },
    body,
  );
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return answer.body;
}

const nav = () => v.page.getByRole('navigation', { name: 'Portal' });

/** The home page, from the workspace's name in the bar; what waits there is listed once counted. */
async function home() {
  await v.page.getByRole('banner').getByRole('link', { name: 'Acme' }).click();
  await arrived(v, 'work-home-320', 'Home');
}

/** The page as it is now, again at 1280 px (its screenshot), then back to 320 px. */
async function wide(name: string) {
  await v.page.setViewportSize({ width: 1280, height: 800 });
  await checkPage(v, `${name}-1280`);
  await v.page.setViewportSize({ width: 320, height: 800 });
}

test('tasks: the client’s and its company’s, counted and filtered; one marked done from the list, one on its page by keyboard, then reopened', async () => {
  const w9 = await ws.call<{ id: string }>('POST', '/v1/tasks', {
    name: 'Send your W-9',
    description: 'The signed form, for our records.\nA scan or a photo is fine.',
    clientId,
    dueDate: '2026-12-15T00:00:00Z',
  });
  await ws.call('POST', '/v1/tasks', { name: 'Find last year’s form', parentTaskId: w9.id, clientId });
  const kickOff = await ws.call<{ id: string }>('POST', '/v1/tasks', { name: 'Book the kick-off call', companyId });

  await home();
  await nav().getByRole('link', { name: 'Tasks (3) waiting' }).waitFor();
  await v.page.getByRole('link', { name: '3 tasks to do' }).click();
  await arrived(v, 'tasks-list-320', 'Tasks');
  const table = v.page.getByRole('table', { name: 'Tasks, newest first' });
  await table.getByRole('link', { name: 'Send your W-9' }).waitFor();
  assert.equal(await table.getByRole('row').count(), 4, 'a header and three tasks');
  await wide('tasks-list');

  // Only what is done: nothing yet; then everything again.
  await v.page.getByLabel('Status').selectOption('completed');
  await v.page.getByRole('button', { name: 'Show', exact: true }).click();
  await v.page.getByText('No task with this status.').waitFor();
  await v.page.getByRole('button', { name: 'Show all' }).click();
  await table.getByRole('link', { name: 'Book the kick-off call' }).waitFor();

  // The company's task, done from the list.
  await v.page.getByRole('button', { name: 'Mark as done: Book the kick-off call' }).click();
  await v.page.getByRole('status').getByText('“Book the kick-off call” is done.').waitFor();
  await table.getByRole('button', { name: 'Reopen: Book the kick-off call' }).waitFor();

  // The client's own, on its page, with the keyboard: its description and its step are there.
  await table.getByRole('link', { name: 'Send your W-9' }).click();
  await arrived(v, 'tasks-task-320', 'Send your W-9');
  await v.page.getByText('A scan or a photo is fine.').waitFor();
  await v.page.getByRole('region', { name: 'Steps' }).getByRole('link', { name: 'Find last year’s form' }).waitFor();
  await wide('tasks-task');
  await v.page.getByRole('button', { name: 'Mark as done' }).focus();
  await v.page.keyboard.press('Enter');
  await v.page.getByRole('status').getByText('“Send your W-9” is done.').waitFor();
  await v.page.getByText(/, by you$/).waitFor();
  await checkPage(v, 'tasks-task-done-320');
  const done = await ws.call<{ status: string; completedBy: string; completedByUserType: string }>('GET', `/v1/tasks/${w9.id}`);
  assert.deepEqual([done.status, done.completedBy, done.completedByUserType], ['completed', clientId, 'client']);

  await v.page.getByRole('button', { name: 'Reopen' }).click();
  await v.page.getByRole('status').getByText('“Send your W-9” is open again.').waitFor();
  assert.equal((await ws.call<{ status: string }>('GET', `/v1/tasks/${w9.id}`)).status, 'todo');
  assert.equal((await ws.call<{ status: string }>('GET', `/v1/tasks/${kickOff.id}`)).status, 'completed');

  // What waits is counted again at the next navigation: the W-9 and its step.
  await home();
  await v.page.getByRole('link', { name: '2 tasks to do' }).waitFor();
});

test('forms: a form of every field type filled in; the server’s refusal shown beside its fields, then the answers sent and read back', async () => {
  const form = await admin<{ id: string; formFields: { formFieldId: string; title: string }[] }>('/forms', {
    name: 'Onboarding questionnaire',
    description: 'A few things we need before we start.',
    formFields: [
      { title: 'Legal name', type: 'shortAnswer', isRequired: true },
      { title: 'Billing e-mail', type: 'email', isRequired: true, description: 'Where invoices go.' },
      { title: 'Website', type: 'url' },
      { title: 'Employees', type: 'number' },
      { title: 'Start date', type: 'date', isRequired: true },
      { title: 'Anything else?', type: 'longAnswer' },
    ],
  });
  const requested = await ws.call<{ id: string }>('POST', '/v1/form-responses', {
    formId: form.id,
    clientCompanyIds: [{ clientId, companyId }],
  });

  await home();
  await v.page.getByRole('link', { name: '1 form to fill in' }).waitFor();
  await nav().getByRole('link', { name: 'Forms (1) waiting' }).click();
  await arrived(v, 'forms-list-320', 'Forms');
  await v.page.getByRole('region', { name: 'Sent' }).getByText('You have not sent a form yet.').waitFor();
  await wide('forms-list');
  await v.page.getByRole('region', { name: 'To fill in' }).getByRole('link', { name: 'Onboarding questionnaire' }).click();
  await arrived(v, 'forms-form-320', 'Onboarding questionnaire');
  await wide('forms-form');

  // Answers the server refuses: each message beside its field, the first such field focused.
  await v.page.getByLabel('Legal name (required)').fill('Hopper & Co Ltd');
  await v.page.getByLabel('Billing e-mail (required)').fill('accounts at hopper');
  await v.page.getByLabel('Employees').fill('a dozen');
  await v.page.getByRole('button', { name: 'Send the answers' }).click();
  await v.page.getByRole('alert').getByText('3 answers need a change: see the message beside each.').waitFor();
  const email = v.page.getByLabel('Billing e-mail (required)');
  assert.equal(await email.getAttribute('aria-invalid'), 'true');
  assert.match(
    await email.evaluate((el) => document.getElementById(el.getAttribute('aria-describedby')?.split(' ').at(-1) ?? '')?.textContent ?? ''),
    /^Must be an e-mail address\.$/,
  );
  await v.page.waitForFunction(() => document.activeElement?.getAttribute('type') === 'email', null, { timeout: WAIT_MS });
  await v.page.getByText('Must be a number.').waitFor();
  await v.page.getByText('Is required.').waitFor();
  await checkPage(v, 'forms-form-refused-320');

  await email.fill('accounts@hopper.test');
  await v.page.getByLabel('Website').fill('https://hopper.test');
  await v.page.getByLabel('Employees').fill('12');
  await v.page.getByLabel('Start date (required)').fill('2027-01-04');
  await v.page.getByLabel('Anything else?').fill('We work remotely.\nMondays are quiet.');
  await v.page.getByRole('button', { name: 'Send the answers' }).click();
  await v.page.getByRole('status').getByText('Thank you: your answers are sent.').waitFor();
  const answers = v.page.getByRole('region', { name: 'Answers' });
  await answers.getByText('accounts@hopper.test').waitFor();
  await answers.getByText('Mondays are quiet.', { exact: false }).waitFor();
  assert.equal(await v.page.getByRole('textbox').count(), 0, 'a sent form is read-only');
  await checkPage(v, 'forms-sent-320');
  await wide('forms-sent');

  const sent = await ws.call<{ status: string; formFields: Record<string, { answer?: string }> }>(
    'GET',
    `/v1/form-responses/${requested.id}`,
  );
  assert.equal(sent.status, 'completed');
  const byTitle = Object.fromEntries(form.formFields.map((f) => [f.title, sent.formFields[f.formFieldId]?.answer]));
  assert.deepEqual(byTitle, {
    'Legal name': 'Hopper & Co Ltd',
    'Billing e-mail': 'accounts@hopper.test',
    Website: 'https://hopper.test',
    Employees: '12',
    'Start date': '2027-01-04',
    'Anything else?': 'We work remotely.\nMondays are quiet.',
  });

  await nav().getByRole('link', { name: 'Forms' }).click();
  await arrived(v, 'forms-list-sent-320', 'Forms');
  await v.page.getByRole('region', { name: 'To fill in' }).getByText('Nothing to fill in.').waitFor();
  await v.page.getByRole('region', { name: 'Sent' }).getByRole('link', { name: 'Onboarding questionnaire' }).waitFor();
});

test('contracts: one sent to the client, read with its details and document, signed by typing; the signed PDF downloads', async () => {
  const template = await admin<{ id: string }>('/contract-templates', {
    name: 'Services agreement',
    fileUrl: 'https://documents.example/services-agreement.pdf',
    fields: [
      { id: 'fee', type: 'text', inputType: 'variable', label: 'Monthly fee' },
      { id: 'term', type: 'text', inputType: 'fixed', value: '12 months', label: 'Term' },
      { id: 'start', type: 'date', inputType: 'client', label: 'Start date' },
      { id: 'signature', type: 'signature', inputType: 'client', label: 'Your signature' },
      { id: 'initials', type: 'initials', inputType: 'client', label: 'Initials', isOptional: true },
    ],
  });
  const contract = await ws.call<{ id: string }>('POST', '/v1/contracts', {
    contractTemplateId: template.id,
    clientId,
    variableValues: { fee: '$1,200' },
  });

  await home();
  await v.page.getByRole('link', { name: '1 contract to sign' }).click();
  await arrived(v, 'contracts-list-320', 'Contracts');
  await wide('contracts-list');
  await v.page.getByRole('region', { name: 'To sign' }).getByRole('link', { name: 'Services agreement' }).click();
  await arrived(v, 'contracts-contract-320', 'Services agreement');
  const details = v.page.getByRole('region', { name: 'Details' });
  await details.getByText('$1,200').waitFor();
  await details.getByText('12 months').waitFor();
  assert.equal(
    await v.page.getByRole('link', { name: 'Read the document' }).getAttribute('href'),
    'https://documents.example/services-agreement.pdf',
  );
  await wide('contracts-contract');

  // Nothing filled in: the server names both required fields.
  await v.page.getByRole('button', { name: 'Sign the contract' }).click();
  await v.page.getByRole('alert').getByText('2 answers need a change: see the message beside each.').waitFor();
  assert.equal(await v.page.getByLabel('Your signature').getAttribute('aria-invalid'), 'true');
  await checkPage(v, 'contracts-refused-320');

  // Signed with the keyboard alone: typed, tabbed, Enter.
  await v.page.getByLabel('Start date').fill('2027-01-04');
  await v.page.getByLabel('Your signature').focus();
  await v.page.keyboard.type('Grace Hopper');
  await v.page.keyboard.press('Tab');
  await v.page.keyboard.type('GH');
  await v.page.keyboard.press('Enter');
  await v.page.getByRole('status').getByText('Thank you: the contract is signed.').waitFor();
  await details.getByText('Grace Hopper').waitFor();
  const download = v.page.getByRole('link', { name: 'Download the signed contract (PDF)' });
  await checkPage(v, 'contracts-signed-320');
  await wide('contracts-signed');

  const href = await download.getAttribute('href');
  assert.equal(href, `/portal/${ws.workspaceId}/v1/contracts/${contract.id}/pdf`);
  const pdf = await v.page.request.get(href ?? '');
  assert.equal(pdf.status(), 200);
  assert.equal(pdf.headers()['content-type'], 'application/pdf');
  assert.equal((await pdf.body()).subarray(0, 5).toString('latin1'), '%PDF-');

  const signed = await ws.call<{ status: string; fields: { id: string; value?: string }[] }>('GET', `/v1/contracts/${contract.id}`);
  assert.equal(signed.status, 'signed');
  assert.deepEqual(Object.fromEntries(signed.fields.map((field) => [field.id, field.value])), {
    fee: '$1,200',
    term: '12 months',
    start: '2027-01-04',
    signature: 'Grace Hopper',
    initials: 'GH',
  });

  // Counted again: only the tasks wait now.
  await home();
  await v.page.getByRole('link', { name: '2 tasks to do' }).waitFor();
  assert.deepEqual(await v.page.locator('ul.waiting li').allTextContents(), ['2 tasks to do']);
});
