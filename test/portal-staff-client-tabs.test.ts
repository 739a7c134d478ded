// Rule (issue 45 point 1: "everything about the client in tabs"): a client's staff page has tabs (Messages, Files,
// Invoices, Tasks, Forms, Contracts), an accessible tablist walked with the arrow keys, Home and End, each tab that
// client's items read from the API filtered for it (paged by the server, loaded when shown), each linking to its
// page in its section; the tab in the address (a reload and the back button keep it). Two companies, Northwind and
// Contoso, a client in each, and for each client what the workspace's key makes: a conversation with a message, a
// file channel with a file, an invoice, a task, a form to fill in, a contract to sign. Fay, an admin, at 1280 px, walks
// Ada's tabs with the keyboard and sees each of Ada's items, never Bob's; reloads, goes back, follows an invoice's
// link and comes back to its tab. Lin, limited to Contoso, at 320 px: Ada's page is "Client not found", Bob's has his
// items. Axe-clean, nothing from another origin. Once per backend (SQLite, then PostgreSQL when
// PORTAL_TEST_POSTGRES_URL is set); the screenshots and axe on the first.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { WAIT_MS } from './helpers/browser.js';
import { BACKENDS } from './helpers/harness.js';
import {
  type Visit,
  assertSameOrigin,
  checkPage,
  newWorkspace,
  signedInStaff,
  startPortal,
  visit,
  rowsOf,
  land,
} from './helpers/portal-pages.js';
import { clientWorld } from './helpers/client-world.js';

/** The in-app paths the links of `where` lead to (after /portal/{workspaceId}). */
const linksOf = (where: Locator) =>
  where.getByRole('link').evaluateAll((links) => links.map((a) => (a.getAttribute('href') ?? '').replace(/^\/portal\/[^/]+/, '')));

/** The tab that is selected, by name, and that it has the focus. */
async function selectedTab(page: Page): Promise<{ name: string; focused: boolean }> {
  return page.evaluate(() => {
    const tab = document.querySelector('[role="tab"][aria-selected="true"]');
    return { name: tab?.textContent ?? '', focused: tab !== null && document.activeElement === tab };
  });
}

/** The panel shown (exactly one), named by its tab. */
async function shownPanel(page: Page, name: string): Promise<Locator> {
  const panel = page.getByRole('tabpanel', { name, exact: true });
  await panel.waitFor({ timeout: WAIT_MS });
  assert.equal(await page.locator('[role="tabpanel"]:not([hidden])').count(), 1, 'one panel shown');
  return panel;
}

for (const [at, backend] of BACKENDS.entries()) {
  test(`staff see everything about a client in tabs (${backend})`, { timeout: 180_000 }, () => clientTabs(backend, at === 0));
}

async function clientTabs(backend: (typeof BACKENDS)[number], shots: boolean) {
  const portal = await startPortal({ backend, env: { RATE_LIMIT_WRITE_CAPACITY: '100' } });
  try {
    const ws = await newWorkspace(portal, 'Acme');
    const form = await ws.admin<{ id: string }>('POST', '/forms', {
      name: 'Onboarding questionnaire',
      formFields: [{ title: 'Legal name', type: 'shortAnswer', isRequired: true }],
    });
    const template = await ws.admin<{ id: string }>('POST', '/contract-templates', {
      name: 'Services agreement',
      fileUrl: 'https://documents.example/services-agreement.pdf',
      fields: [{ id: 'signature', type: 'signature', inputType: 'client', label: 'Your signature' }],
    });
    const shared = { formId: form.id, templateId: template.id };
    const ada = await clientWorld(ws, shared, 'Northwind', { givenName: 'Ada', familyName: 'Lovelace', email: 'ada@northwind.test' });
    const bob = await clientWorld(ws, shared, 'Contoso', { givenName: 'Bob', familyName: 'Brown', email: 'bob@contoso.test' });
    /** A page open: pictured and axe-checked on the first backend; its heading focused and its reads done on both. */
    const open = (v: Visit, name: string, title: string) => land(v, shots, name, title);

    // Fay, an admin, at 1280 px, opens Ada's page from the clients list: the Messages tab first, her conversation.
    const full = await visit(portal, 1280);
    await signedInStaff(portal, ws, full, { email: 'fay@acme.test', givenName: 'Fay', familyName: 'Full', role: 'admin' });
    const fp = full.page;
    await fp.getByRole('navigation', { name: 'Portal' }).getByRole('link', { name: 'Clients' }).click();
    await fp.getByRole('table', { name: 'Clients, newest first' }).getByRole('link', { name: 'Ada Lovelace' }).click();
    const tablist = fp.getByRole('tablist', { name: 'The client’s things' });
    await tablist.getByRole('tab', { name: 'Contracts' }).waitFor({ timeout: WAIT_MS });
    assert.deepEqual(await tablist.getByRole('tab').allTextContents(), ['Messages', 'Files', 'Invoices', 'Tasks', 'Forms', 'Contracts']);
    let panel = await shownPanel(fp, 'Messages');
    await panel.getByRole('link', { name: 'Ada Lovelace' }).waitFor();
    await open(full, 'staff-client-tabs-1280', 'Ada Lovelace');
    assert.equal((await rowsOf(panel.getByRole('table'))).length, 1);
    assert.deepEqual(await linksOf(panel), [`/messages/${ada.channelId}`]);
    // Only the tab shown was read: its list, filtered for Ada by the server.
    // (The navigation counts what waits for Fay herself: those reads name no client.)
    const asked = (what: string) => full.requests.filter((url) => url.includes(`/v1/${what}?`) && url.includes(ada.client.id));
    assert.ok(
      asked('message-channels').some((url) => url.includes(`memberId=${ada.client.id}`)),
      full.requests.join('\n'),
    );
    for (const what of ['invoices', 'tasks', 'form-responses', 'contracts', 'channels/files'])
      assert.deepEqual(asked(what), [], `${what}: not read before its tab is shown`);

    // The keyboard: the focus on the selected tab, then the arrow keys move to each tab and show it.
    await tablist.getByRole('tab', { name: 'Messages' }).focus();
    await fp.keyboard.press('ArrowRight');
    panel = await shownPanel(fp, 'Files');
    assert.deepEqual(await selectedTab(fp), { name: 'Files', focused: true });
    await panel.getByRole('region', { name: 'Ada Lovelace' }).getByRole('link', { name: 'Northwind brief.txt' }).waitFor();
    assert.deepEqual(await linksOf(panel), [`/files/${ada.fileChannelId}`, `/files/${ada.fileChannelId}`]);
    if (shots) await checkPage(full, 'staff-client-tabs-files-1280');

    await fp.keyboard.press('ArrowRight');
    panel = await shownPanel(fp, 'Invoices');
    const invoices = panel.getByRole('table', { name: 'Invoices, newest first' });
    await invoices.getByRole('link', { name: 'Invoice 0001' }).waitFor();
    const [invoiceRow] = await rowsOf(invoices);
    assert.match(invoiceRow ?? '', /^Invoice 0001 \| \$120\.00 \| Open \| .+$/);
    assert.deepEqual(await linksOf(panel), [`/billing/invoices/${ada.invoiceId}`]);
    assert.ok(asked('invoices').every((url) => url.includes(`clientId=${ada.client.id}`)) && asked('invoices').length > 0);

    await fp.keyboard.press('ArrowRight');
    panel = await shownPanel(fp, 'Tasks');
    await panel.getByRole('link', { name: 'Northwind: send the W-9' }).waitFor();
    assert.deepEqual(await rowsOf(panel.getByRole('table')), ['Northwind: send the W-9 | To do | No due date']);
    assert.deepEqual(await linksOf(panel), [`/tasks/${ada.taskId}`]);

    await fp.keyboard.press('ArrowRight');
    panel = await shownPanel(fp, 'Forms');
    await panel.getByRole('link', { name: 'Onboarding questionnaire' }).waitFor();
    assert.deepEqual(await linksOf(panel), [`/forms/${ada.formResponseId}`]);
    assert.match((await rowsOf(panel.getByRole('table')))[0] ?? '', /^Onboarding questionnaire \| Waiting for an answer \| /);

    await fp.keyboard.press('ArrowRight');
    panel = await shownPanel(fp, 'Contracts');
    await panel.getByRole('link', { name: 'Services agreement' }).waitFor();
    assert.deepEqual(await linksOf(panel), [`/contracts/${ada.contractId}`]);
    assert.deepEqual(await selectedTab(fp), { name: 'Contracts', focused: true });
    // Past the last tab, the first; Home and End.
    await fp.keyboard.press('ArrowRight');
    await shownPanel(fp, 'Messages');
    await fp.keyboard.press('ArrowLeft');
    await shownPanel(fp, 'Contracts');
    await fp.keyboard.press('Home');
    await shownPanel(fp, 'Messages');
    await fp.keyboard.press('End');
    await shownPanel(fp, 'Contracts');
    assert.deepEqual(await selectedTab(fp), { name: 'Contracts', focused: true });
    // Nothing of Bob's on any of Ada's tabs.
    const main = (await fp.locator('main').textContent()) ?? '';
    assert.ok(!main.includes('Bob') && !main.includes('Contoso'), main);

    // The tab is in the address: a reload keeps it; back shows the tab before.
    assert.equal(new URL(fp.url()).searchParams.get('tab'), 'contracts');
    await fp.reload();
    await (await shownPanel(fp, 'Contracts')).getByRole('link', { name: 'Services agreement' }).waitFor();
    await fp.goBack();
    await (await shownPanel(fp, 'Messages')).getByRole('link', { name: 'Ada Lovelace' }).waitFor();
    assert.equal(new URL(fp.url()).searchParams.get('tab'), 'messages');

    // An invoice's link opens its page in Billing; back comes to the Invoices tab.
    await tablist.getByRole('tab', { name: 'Invoices' }).click();
    await (await shownPanel(fp, 'Invoices')).getByRole('link', { name: 'Invoice 0001' }).click();
    await fp.getByRole('heading', { level: 1, name: 'Invoice 0001', exact: true }).waitFor();
    assert.equal(new URL(fp.url()).pathname, `/portal/${ws.workspaceId}/billing/invoices/${ada.invoiceId}`);
    await fp.goBack();
    await (await shownPanel(fp, 'Invoices')).getByRole('link', { name: 'Invoice 0001' }).waitFor();
    assert.deepEqual(await selectedTab(fp), { name: 'Invoices', focused: false });
    assertSameOrigin(portal, full);
    await full.context.close();

    // Lin, limited to Contoso, at 320 px: Ada's page is not found; Bob's shows his things only.
    const v = await visit(portal, 320);
    await signedInStaff(portal, ws, v, {
      email: 'lin@acme.test',
      givenName: 'Lin',
      familyName: 'Limited',
      companyAccessList: [bob.company.id],
    });
    const { page } = v;
    await page.goto(`${ws.pages}/clients/${ada.client.id}?tab=invoices`);
    await open(v, 'staff-client-tabs-other-320', 'Client not found');
    assert.equal(await page.getByRole('tablist').count(), 0);
    await page.goto(`${ws.pages}/clients/${bob.client.id}?tab=invoices`);
    panel = await shownPanel(page, 'Invoices');
    await panel.getByRole('link', { name: 'Invoice 0002' }).waitFor();
    await open(v, 'staff-client-tabs-320', 'Bob Brown');
    assert.deepEqual(await linksOf(panel), [`/billing/invoices/${bob.invoiceId}`]);
    await page.getByRole('tab', { name: 'Invoices' }).focus();
    await page.keyboard.press('ArrowRight');
    panel = await shownPanel(page, 'Tasks');
    await panel.getByRole('link', { name: 'Contoso: send the W-9' }).waitFor();
    assert.deepEqual(await linksOf(panel), [`/tasks/${bob.taskId}`]);
    if (shots) await checkPage(v, 'staff-client-tabs-tasks-320');
    const text = (await page.locator('main').textContent()) ?? '';
    assert.ok(!text.includes('Ada') && !text.includes('Northwind'), text);
    // A client with nothing yet: each tab says so.
    const cy = await ws.call<{ id: string }>('POST', '/v1/clients', {
      givenName: 'Cy',
      familyName: 'Young',
      email: 'cy@contoso.test',
      companyId: bob.company.id,
    });
    await page.goto(`${ws.pages}/clients/${cy.id}?tab=contracts`);
    await (await shownPanel(page, 'Contracts')).getByText('No contract sent to Cy Young yet.').waitFor();
    await page.getByRole('tab', { name: 'Contracts' }).focus();
    await page.keyboard.press('Home');
    await (await shownPanel(page, 'Messages')).getByText('Cy Young is in no conversation yet.').waitFor();
    assertSameOrigin(portal, v);
    await v.context.close();
  } finally {
    await portal.close();
  }
}
