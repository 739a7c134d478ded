// Rule (issue 45 point 4: "staff run the tasks: a board by status, filtered by assignee, cards moved with the keyboard,
// tasks created, edited and deleted; task templates, and a task from one"; tested: "a limited internal user sees only
// its companies' tasks"). Fay, an admin, creates a template with a step, edits and deletes another, creates a task from
// the first assigned to Ada (a client of Northwind, found by a search), moves it To do → In progress → Done with the
// keyboard alone (Tab, Enter, Space; the focus follows the card, the live region says where it went), filters the
// board by Ada on the server, creates, edits and deletes a task. Ada, signed in, finds the task in her portal. Lin,
// limited to Contoso, sees Contoso's task and nothing of Northwind's, no template controls, and the API refuses her a
// template (403). At 1280 px (Fay) and 320 px (Ada, Lin), axe-clean, nothing from another origin. Once per backend:
// screenshots and axe on the first, the rule's checks alone on the second.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { WAIT_MS } from './helpers/browser.js';
import { BACKENDS } from './helpers/harness.js';
import {
  assertSameOrigin,
  checkPage,
  newWorkspace,
  signedInClient,
  signedInStaff,
  startPortal,
  visit,
  land,
} from './helpers/portal-pages.js';

for (const [at, backend] of BACKENDS.entries()) {
  test(`staff run the task board and the task templates (${backend})`, { timeout: 240_000 }, () => staffTasks(backend, at === 0));
}

/** Tab (forward) until the focused control's accessible label is `label`, then nothing else: at most 80 presses. */
async function tabTo(page: Page, label: string) {
  for (let n = 0; n < 80; n++) {
    await page.keyboard.press('Tab');
    if ((await page.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? '')) === label) return;
  }
  assert.fail(`the keyboard reaches “${label}”`);
}

/** The focus is on the task's card, in the column whose heading has this id. */
const focusedIn = (page: Page, taskId: string, column: string) =>
  page.waitForFunction(
    ([id, heading]) => {
      const card = document.activeElement as HTMLElement | null;
      return card?.dataset.taskId === id && card.closest('section')?.getAttribute('aria-labelledby') === heading;
    },
    [taskId, column],
    { timeout: WAIT_MS },
  );

const cardNames = (page: Page, column: string) =>
  page.getByRole('region', { name: column, exact: true }).locator('.task-name').allTextContents();

async function staffTasks(backend: (typeof BACKENDS)[number], shots: boolean) {
  const portal = await startPortal({ backend, env: { RATE_LIMIT_WRITE_CAPACITY: '100' } });
  try {
    const ws = await newWorkspace(portal, 'Acme');
    const north = await ws.call<{ id: string }>('POST', '/v1/companies', { name: 'Northwind' });
    const contoso = await ws.call<{ id: string }>('POST', '/v1/companies', { name: 'Contoso' });
    const bob = await ws.call<{ id: string }>('POST', '/v1/clients', {
      givenName: 'Bob',
      familyName: 'Brown',
      email: 'bob@contoso.test',
      companyId: contoso.id,
    });
    await ws.call('POST', '/v1/tasks', { name: 'Contoso: sign the lease', clientId: bob.id });
    const scratch = await ws.call<{ id: string }>('POST', '/v1/task-templates', { name: 'Scratch' });

    // Ada, a client of Northwind, signs in (at 320 px; her tab waits for the end).
    const ada = await visit(portal, 320);
    const adaId = await signedInClient(ws, ada, {
      email: 'ada@northwind.test',
      givenName: 'Ada',
      familyName: 'Lovelace',
      companyId: north.id,
    });

    // Fay, an admin, at 1280 px: the templates.
    const v = await visit(portal, 1280);
    await signedInStaff(portal, ws, v, { email: 'fay@acme.test', givenName: 'Fay', familyName: 'Full', role: 'admin' });
    const { page } = v;
    page.on('dialog', (dialog) => void dialog.accept());
    await page.getByRole('navigation', { name: 'Portal' }).getByRole('link', { name: 'Tasks' }).click();
    await land(v, shots, 'staff-tasks-1280', 'Tasks');
    await page.getByRole('link', { name: 'Task templates' }).click();
    await land(v, shots, 'staff-task-templates-1280', 'Task templates');
    const newTemplate = page.getByRole('region', { name: 'New template' });
    await newTemplate.getByLabel('Name').fill('Onboarding');
    await newTemplate.getByLabel('Description').fill('Welcome a new client');
    await newTemplate.getByLabel('Steps').fill('Collect the W-9');
    await newTemplate.getByRole('button', { name: 'Create the template' }).click();
    await page.getByRole('status').getByText('The template “Onboarding” was created.').waitFor();
    const templates = await ws.call<{ data: { id: string; name: string; description: string; subTaskTemplates: { name: string }[] }[] }>(
      'GET',
      '/v1/task-templates',
    );
    const onboarding = templates.data.find((t) => t.name === 'Onboarding');
    assert.deepEqual(
      [onboarding?.description, onboarding?.subTaskTemplates.map((s) => s.name)],
      ['Welcome a new client', ['Collect the W-9']],
    );
    assert.ok(
      v.requests.some((url) => url.includes('/v1/task-templates?limit=20')),
      'the templates read a page at a time',
    );

    // Scratch renamed, then deleted.
    await page.getByRole('button', { name: 'Edit: Scratch' }).click();
    const editTemplate = page.getByRole('form', { name: 'Edit Scratch' });
    await editTemplate.getByLabel('Name').fill('Offboarding');
    await editTemplate.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').getByText('The template “Offboarding” was saved.').waitFor();
    assert.equal((await ws.call<{ name: string }>('GET', `/v1/task-templates/${scratch.id}`)).name, 'Offboarding');
    await page.getByRole('button', { name: 'Delete: Offboarding' }).click();
    await page.getByRole('status').getByText('The template “Offboarding” was deleted.').waitFor();
    assert.equal((await portal.http('GET', `/v1/task-templates/${scratch.id}`, { 'x-api-key': ws.apiKey })).status, 404);

    // A task from Onboarding, for Ada (found by a search), due on 15 December.
    await page.getByRole('button', { name: 'New task from it: Onboarding' }).click();
    const fromTemplate = page.getByRole('form', { name: 'New task from Onboarding' });
    await fromTemplate.getByLabel('Due date').fill('2026-12-15');
    await fromTemplate.getByLabel('Who').selectOption({ label: 'A client' });
    await fromTemplate.getByLabel('Find a client').fill('ada');
    await fromTemplate.getByRole('button', { name: 'Find', exact: true }).click();
    const adaOption = 'Ada Lovelace (ada@northwind.test)';
    await fromTemplate.getByRole('option', { name: adaOption }).waitFor({ state: 'attached' });
    await fromTemplate.getByLabel('Client', { exact: true }).selectOption({ label: adaOption });
    if (shots) await checkPage(v, 'staff-task-from-template-1280');
    await fromTemplate.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').getByText('The task “Onboarding” was created from the template.').waitFor();
    type Task = { id: string; name: string; status: string; clientId?: string; companyId?: string; dueDate?: string; templateId?: string };
    const adas = (await ws.call<{ data: Task[] }>('GET', `/v1/tasks?clientId=${adaId}`)).data;
    const task = adas.find((t) => t.name === 'Onboarding');
    assert.deepEqual(
      [task?.templateId, task?.companyId, task?.dueDate, task?.status],
      [onboarding?.id, north.id, '2026-12-15T00:00:00.000Z', 'todo'],
    );
    assert.deepEqual(adas.map((t) => t.name).sort(), ['Collect the W-9', 'Onboarding']);
    const taskId = task?.id ?? '';

    // The board: To do → In progress → Done, with the keyboard alone.
    await page.getByRole('link', { name: 'All tasks' }).click();
    await land(v, shots, 'staff-task-board-1280', 'Tasks');
    await page.getByRole('region', { name: 'To do', exact: true }).getByText('Onboarding', { exact: true }).waitFor();
    assert.deepEqual((await cardNames(page, 'To do')).sort(), ['Collect the W-9', 'Contoso: sign the lease', 'Onboarding']);
    await tabTo(page, 'Move to In progress: Onboarding');
    await page.keyboard.press('Enter');
    await page.getByRole('status').getByText('“Onboarding” moved to In progress.').waitFor();
    await focusedIn(page, taskId, 'column-inProgress');
    assert.deepEqual(await cardNames(page, 'In progress'), ['Onboarding']);
    assert.equal((await ws.call<Task>('GET', `/v1/tasks/${taskId}`)).status, 'inProgress');
    await tabTo(page, 'Move to Done: Onboarding');
    await page.keyboard.press('Space');
    await page.getByRole('status').getByText('“Onboarding” moved to Done.').waitFor();
    await focusedIn(page, taskId, 'column-completed');
    assert.deepEqual(await cardNames(page, 'Done'), ['Onboarding']);
    // Each column reads its page again on its own request: the one the card left may answer after the one it joined.
    await page
      .getByRole('region', { name: 'In progress', exact: true })
      .locator('.task-name', { hasText: 'Onboarding' })
      .waitFor({ state: 'detached' });
    assert.deepEqual(await cardNames(page, 'In progress'), []);
    assert.equal((await ws.call<Task>('GET', `/v1/tasks/${taskId}`)).status, 'completed');
    if (shots) await checkPage(v, 'staff-task-board-moved-1280');

    // Filtered by Ada, on the server: her two tasks only.
    const filter = page.getByRole('search', { name: 'Tasks' });
    await filter.getByLabel('Who').selectOption({ label: 'A client' });
    await filter.getByLabel('Find a client').fill('ada');
    await filter.getByRole('button', { name: 'Find', exact: true }).click();
    await filter.getByRole('option', { name: adaOption }).waitFor({ state: 'attached' });
    await filter.getByLabel('Client', { exact: true }).selectOption({ label: adaOption });
    await filter.getByRole('button', { name: 'Filter', exact: true }).click();
    await filter.getByRole('button', { name: 'Show everyone’s' }).waitFor();
    await page.waitForFunction(() => !document.body.textContent?.includes('Contoso: sign the lease'), undefined, { timeout: WAIT_MS });
    await page.getByRole('region', { name: 'To do', exact: true }).getByText('Collect the W-9').waitFor();
    assert.deepEqual(await cardNames(page, 'To do'), ['Collect the W-9']);
    assert.deepEqual(await cardNames(page, 'Done'), ['Onboarding']);
    assert.ok(
      v.requests.some((url) => url.includes('/v1/tasks?') && url.includes(`clientId=${adaId}`) && url.includes('status=todo')),
      'the filter is the server’s',
    );
    await filter.getByRole('button', { name: 'Show everyone’s' }).click();
    await page.getByRole('region', { name: 'To do', exact: true }).getByText('Contoso: sign the lease').waitFor();

    // A new task for Northwind, edited, then deleted.
    const newTask = page.getByRole('region', { name: 'New task' });
    await newTask.getByLabel('Name').fill('Call Ada');
    await newTask.getByLabel('Description').fill('About the W-9');
    await newTask.getByLabel('Who').selectOption({ label: 'A company' });
    await newTask.getByLabel('Find a company').fill('north');
    await newTask.getByRole('button', { name: 'Find', exact: true }).click();
    await newTask.getByRole('option', { name: 'Northwind' }).waitFor({ state: 'attached' });
    await newTask.getByLabel('Company', { exact: true }).selectOption({ label: 'Northwind' });
    await newTask.getByRole('button', { name: 'Create the task' }).click();
    await page.getByRole('status').getByText('“Call Ada” was created in To do.').waitFor();
    const call = (await ws.call<{ data: Task[] }>('GET', `/v1/tasks?companyId=${north.id}`)).data.find((t) => t.name === 'Call Ada');
    assert.deepEqual([call?.companyId, call?.clientId, call?.status], [north.id, undefined, 'todo']);
    await page.getByRole('button', { name: 'Edit: Call Ada' }).click();
    const editTask = page.getByRole('form', { name: 'Edit Call Ada' });
    await editTask.getByLabel('Name').fill('Call Ada back');
    await editTask.getByLabel('Due date').fill('2026-12-20');
    await editTask.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').getByText('“Call Ada back” was saved.').waitFor();
    const edited = await ws.call<Task>('GET', `/v1/tasks/${call?.id}`);
    assert.deepEqual([edited.name, edited.dueDate, edited.companyId], ['Call Ada back', '2026-12-20T00:00:00.000Z', north.id]);
    await page.getByRole('button', { name: 'Delete: Call Ada back' }).click();
    await page.getByRole('status').getByText('“Call Ada back” was deleted.').waitFor();
    assert.equal((await portal.http('GET', `/v1/tasks/${call?.id}`, { 'x-api-key': ws.apiKey })).status, 404);
    assertSameOrigin(portal, v);
    await v.context.close();

    // Ada finds the task in her portal (the clients' page, unchanged).
    await ada.page.goto(`${ws.pages}/tasks`);
    await land(ada, shots, 'staff-tasks-client-320', 'Tasks');
    const adaTable = ada.page.getByRole('table', { name: 'Tasks, newest first' });
    await adaTable.getByRole('link', { name: 'Onboarding', exact: true }).waitFor();
    assert.ok(!((await ada.page.locator('main').textContent()) ?? '').includes('Contoso'), 'nothing of Contoso’s');
    assertSameOrigin(portal, ada);
    await ada.context.close();

    // Lin, limited to Contoso, at 320 px: Contoso's task, nothing of Northwind's; no template controls.
    const lin = await visit(portal, 320);
    await signedInStaff(portal, ws, lin, {
      email: 'lin@acme.test',
      givenName: 'Lin',
      familyName: 'Limited',
      companyAccessList: [contoso.id],
    });
    await lin.page.goto(`${ws.pages}/tasks`);
    await land(lin, shots, 'staff-tasks-320', 'Tasks');
    await lin.page.getByRole('region', { name: 'To do', exact: true }).getByText('Contoso: sign the lease').waitFor();
    await lin.page.getByRole('region', { name: 'Done', exact: true }).getByText('No task here.').waitFor();
    const linText = (await lin.page.locator('main').textContent()) ?? '';
    for (const word of ['Onboarding', 'Collect the W-9', 'Northwind']) assert.ok(!linText.includes(word), `nothing of ${word}`);
    await lin.page.goto(`${ws.pages}/tasks/${taskId}`);
    await land(lin, shots, 'staff-task-other-320', 'Task not available');
    await lin.page.goto(`${ws.pages}/tasks/templates`);
    await land(lin, shots, 'staff-task-templates-320', 'Task templates');
    await lin.page.getByRole('button', { name: 'New task from it: Onboarding' }).waitFor();
    assert.equal(await lin.page.getByRole('button', { name: 'Edit: Onboarding' }).count(), 0);
    assert.equal(await lin.page.getByRole('region', { name: 'New template' }).count(), 0);
    const refused = await lin.page.evaluate(async (url) => {
      const answer = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-portal-request': '1' },
        body: JSON.stringify({ name: 'Mine' }),
      });
      return answer.status;
    }, `${ws.pages}/v1/task-templates`);
    assert.equal(refused, 403);
    assertSameOrigin(portal, lin);
    await lin.context.close();
  } finally {
    await portal.close();
  }
}
