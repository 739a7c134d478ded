// Rule (issue 44: "a limited or full internal user who signs in sees the same pages for the clients it may see,
// read-only where the API says so"; tested: "a limited internal user sees only its companies' clients", on both
// backends). A workspace of two companies, Northwind and Contoso, a client in each, and for each client what the
// API key makes: a conversation with a message, a file channel with a file, an invoice, a task, a form to fill in, a
// contract to sign, an app's link; tasks of two members of staff; a notification each. Lin, limited to Northwind,
// signs in as staff (an e-mailed link) and finds, in every section, Northwind's client's things and never Contoso's
// (nor its client's name), by name where staff read names; where the API refuses staff the action (paying, signing,
// answering, another member of staff's task) the page is read-only, and what the API lets them do (a reply, their own
// task done) works; what another company's id names is not found. Fay, who sees every company, finds both clients'
// things. At 320 px, then each page at 1280 px; axe-clean, nothing from another origin. Once per backend: a
// `portal serve` process on SQLite, then on a PostgreSQL database of its own (when PORTAL_TEST_POSTGRES_URL is set).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Locator } from 'playwright-core';
import { WAIT_MS } from './helpers/browser.js';
import { BACKENDS } from './helpers/harness.js';
import {
  type Visit,
  arrived,
  assertSameOrigin,
  checkPage,
  newWorkspace,
  signedInStaff,
  startPortal,
  visit,
  rowsOf,
  reached,
} from './helpers/portal-pages.js';
import { type ClientWorld, clientWorld } from './helpers/client-world.js';

/** A task board column's cards: name | due date · assignee | whether it may be moved (its buttons) or is read-only. */
const cardsOf = (column: Locator) =>
  column
    .locator('.task-card')
    .evaluateAll((cards) =>
      cards.map((card) =>
        [
          card.querySelector('.task-name')?.textContent,
          card.querySelector('.task-meta')?.textContent,
          card.querySelector('button') ? 'moves' : 'read-only',
        ].join(' | '),
      ),
    );

/** Until `locator` (a table, a list) reads `text` somewhere (the names are looked up after the rows come). */
const reads = (locator: Locator, text: string) => locator.getByText(text, { exact: false }).first().waitFor({ timeout: WAIT_MS });

/** Nothing of the other company on the page: neither its name nor its client's. */
async function assertNothingOf(v: Visit, other: ClientWorld, where: string) {
  const text = (await v.page.locator('body').textContent()) ?? '';
  for (const word of [other.company.name, other.client.name]) assert.ok(!text.includes(word), `${where}: nothing of ${word} (${text})`);
}

for (const [at, backend] of BACKENDS.entries()) {
  test(`staff see the pages of the clients they may see, read-only where the API says so (${backend})`, { timeout: 180_000 }, () =>
    staffView(backend, at === 0),
  );
}

/** `shots`: screenshots and axe on each page (`arrived`), each list page at 1280 px too; else the rule's checks alone. */
async function staffView(backend: (typeof BACKENDS)[number], shots: boolean) {
  // Two worlds are written with the workspace's key faster than its burst of writes allows by default.
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
    const reports = await ws.admin<{ id: string }>('POST', '/installs', { type: 'manual', name: 'Reports' });
    const shared = { formId: form.id, templateId: template.id, reportsId: reports.id };
    const north = await clientWorld(ws, shared, 'Northwind', {
      givenName: 'Ada',
      familyName: 'Lovelace',
      email: 'ada@northwind.test',
    });
    const contoso = await clientWorld(ws, shared, 'Contoso', { givenName: 'Bob', familyName: 'Brown', email: 'bob@contoso.test' });

    // Lin sees Northwind only; Fay every company. Each signs in by an e-mailed link, in a tab of their own.
    const v = await visit(portal, 320);
    const full = await visit(portal, 1280);
    const [lin, fay] = await Promise.all([
      signedInStaff(portal, ws, v, {
        email: 'lin@acme.test',
        givenName: 'Lin',
        familyName: 'Limited',
        companyAccessList: [north.company.id],
      }),
      signedInStaff(portal, ws, full, { email: 'fay@acme.test', givenName: 'Fay', familyName: 'Full' }),
    ]);
    // A task each (staff's own tasks concern no company: Lin sees Fay's, read-only), and a notification each.
    await ws.call('POST', '/v1/tasks', { name: 'Plan the quarter', internalUserId: fay });
    await ws.call('POST', '/v1/tasks', { name: 'Review the notes', internalUserId: lin });
    for (const [recipient, from] of [
      [lin, north],
      [fay, contoso],
    ] as const) {
      await ws.call('POST', '/v1/notifications', {
        senderId: from.client.id,
        recipientInternalUserId: recipient,
        deliveryTargets: { inProduct: { title: `${from.client.name} sent a file`, body: `From ${from.company.name}.` } },
      });
    }
    const { page } = v;
    const nav = page.getByRole('navigation', { name: 'Portal' });
    const main = page.locator('main');
    /** Lin's page `title` is open: checked and pictured (on the first backend), and nothing of Contoso's on it. */
    const see = async (name: string, title: string) => {
      await (shots ? arrived(v, `staff-${name}-320`, title) : reached(v, '', title));
      await assertNothingOf(v, contoso, name);
    };
    /** The same page at 1280 px (on the first backend), then back to 320 px. */
    const wide = async (name: string) => {
      if (!shots) return;
      await page.setViewportSize({ width: 1280, height: 800 });
      await checkPage(v, `staff-${name}-1280`);
      await page.setViewportSize({ width: 320, height: 800 });
    };

    // Home: whose clients Lin sees, and what waits for her (counted as staff: her task, her notification, the
    // conversation she has not read).
    await page.reload();
    await see('home', 'Home');
    await page.getByText('You see the clients of Northwind only').waitFor();
    assert.deepEqual(await page.locator('ul.waiting li').allTextContents(), [
      '1 conversation with new messages',
      '1 task to do',
      '1 unread notification',
    ]);
    await wide('home');

    // Messages: Ada's conversation, by her name; Lin answers, as herself.
    await nav.getByRole('link', { name: /^Messages/ }).click();
    await see('messages', 'Messages');
    const conversations = page.getByRole('list', { name: 'Conversations' });
    await conversations.getByRole('link', { name: 'Ada Lovelace New messages' }).waitFor();
    assert.equal(await conversations.getByRole('listitem').count(), 1);
    await wide('messages');
    await conversations.getByRole('link', { name: 'Ada Lovelace New messages' }).click();
    await see('messages-thread', 'Ada Lovelace');
    await page.locator('ol.messages > li', { hasText: 'Ada Lovelace' }).getByText('Hello from Northwind.').waitFor();
    await page.getByLabel('Your message').fill('Thank you, Ada: it is in hand.');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.locator('ol.messages > li.mine', { hasText: 'Thank you, Ada: it is in hand.' }).getByText('You', { exact: true }).waitFor();
    const sent = await ws.call<{ data: { senderId: string; text: string }[] }>('GET', `/v1/messages?channelId=${north.channelId}`);
    assert.deepEqual(
      sent.data.map((m) => [m.senderId, m.text]),
      [
        [lin, 'Thank you, Ada: it is in hand.'],
        [north.client.id, 'Hello from Northwind.'],
      ],
    );

    // Files: Ada's channel, by her name; its file, and staff may add to it.
    await nav.getByRole('link', { name: 'Files' }).click();
    await see('files', 'Files');
    const channels = page.locator('ul.channels');
    await channels.getByRole('link', { name: 'Ada Lovelace' }).waitFor();
    assert.deepEqual(await channels.getByRole('link').allTextContents(), ['Ada Lovelace']);
    await wide('files');
    await channels.getByRole('link', { name: 'Ada Lovelace' }).click();
    await see('files-channel', 'Ada Lovelace');
    await page.getByRole('table').getByText('Northwind brief.txt', { exact: true }).waitFor();
    await page.getByRole('heading', { name: 'Add files' }).waitFor();

    // Billing: Ada's invoice, billed to her by name; read-only (no Pay, no cards); nothing waits for staff.
    await nav.getByRole('link', { name: 'Billing' }).click();
    await see('billing', 'Billing');
    const invoices = page.getByRole('table', { name: 'Invoices, newest first' });
    await reads(invoices, 'Ada Lovelace');
    assert.deepEqual(await rowsOf(invoices), [`Invoice 0001 | Ada Lovelace | $120.00 | Open | ${await dueOf(invoices)}`]);
    assert.deepEqual(await page.getByRole('navigation', { name: 'Billing' }).getByRole('link').allTextContents(), [
      'Invoices and subscriptions',
      'Payment history',
    ]);
    await wide('billing');
    await invoices.getByRole('link', { name: 'Invoice 0001' }).click();
    await see('billing-invoice', 'Invoice 0001');
    await reads(main, 'Billed toAda Lovelace');
    await page.getByText('Open: its client pays it here.').waitFor();
    assert.equal(await page.getByRole('button', { name: /^Pay/ }).count(), 0, 'staff are offered no payment');

    // Tasks: Ada's, Lin's own and Fay's (staff's tasks concern no company), each assignee by name; Lin marks hers
    // and Ada's done, as the API lets her; Fay's is read-only to her.
    await nav.getByRole('link', { name: /^Tasks/ }).click();
    await see('tasks', 'Tasks');
    // The board (staff/task-board.tsx): every task here is to do; a card moves only where the API lets her change it.
    const tasks = page.getByRole('region', { name: 'To do', exact: true });
    await reads(tasks, 'Fay Full');
    await reads(tasks, 'Ada Lovelace');
    assert.deepEqual(await cardsOf(tasks), [
      'Review the notes | No due date · You | moves',
      'Plan the quarter | No due date · Fay Full | read-only',
      'Northwind: send the W-9 | No due date · Ada Lovelace | moves',
    ]);
    await wide('tasks');
    await tasks.getByRole('button', { name: 'Move to Done: Review the notes' }).click();
    await page.getByRole('status').getByText('“Review the notes” moved to Done.').waitFor();
    await tasks.getByRole('link', { name: 'Plan the quarter' }).click();
    await see('tasks-task', 'Plan the quarter');
    await page.getByText('Another member of staff does this task').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Mark as done' }).count(), 0, 'another internal user’s task is read-only');
    await page.goBack();
    await reached(v, '', 'Tasks');
    await tasks.getByRole('link', { name: 'Northwind: send the W-9' }).click();
    await see('tasks-client-task', 'Northwind: send the W-9');
    await page.getByRole('button', { name: 'Mark as done' }).click();
    await page.getByRole('status').getByText('“Northwind: send the W-9” is done.').waitFor();
    const done = await ws.call<{ status: string; completedBy: string }>('GET', `/v1/tasks/${north.taskId}`);
    assert.deepEqual([done.status, done.completedBy], ['completed', lin]);

    // Forms: asked of Ada, read-only: staff answer none.
    await nav.getByRole('link', { name: 'Forms' }).click();
    await see('forms', 'Forms');
    const waitingForms = page.getByRole('table', { name: 'Waiting for answers, newest first' });
    await reads(waitingForms, 'Ada Lovelace');
    assert.deepEqual(
      (await rowsOf(waitingForms)).map((row) => row.split(' | ').slice(0, 2).join(' | ')),
      ['Onboarding questionnaire | Ada Lovelace'],
    );
    await wide('forms');
    await waitingForms.getByRole('link', { name: 'Onboarding questionnaire' }).click();
    await see('forms-response', 'Onboarding questionnaire');
    await reads(main, 'Asked ofAda Lovelace');
    await page.getByText('Waiting for the client’s answers.').waitFor();
    assert.equal(await page.getByRole('textbox').count(), 0, 'staff answer no form');
    assert.equal(await page.getByRole('button', { name: 'Send the answers' }).count(), 0);

    // Contracts: sent to Ada, read-only: staff sign none.
    await nav.getByRole('link', { name: 'Contracts' }).click();
    await see('contracts', 'Contracts');
    const toSign = page.getByRole('table', { name: 'Waiting for a signature, newest first' });
    await reads(toSign, 'Ada Lovelace');
    assert.deepEqual(
      (await rowsOf(toSign)).map((row) => row.split(' | ').slice(0, 2).join(' | ')),
      ['Services agreement | Ada Lovelace'],
    );
    await wide('contracts');
    await toSign.getByRole('link', { name: 'Services agreement' }).click();
    await see('contracts-contract', 'Services agreement');
    await reads(main, 'Sent toAda Lovelace');
    await page.getByText('Waiting for the client’s signature.').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Sign the contract' }).count(), 0, 'staff sign no contract');

    // Apps: Northwind's report link, not Contoso's.
    await nav.getByRole('link', { name: 'Apps' }).click();
    await see('apps', 'Apps');
    await page.getByRole('link', { name: 'northwind.reports.example (opens in a new tab)' }).waitFor();
    assert.equal(await page.getByRole('link', { name: /contoso/ }).count(), 0);
    await wide('apps');

    // Notifications: her own.
    await nav.getByRole('link', { name: /^Notifications/ }).click();
    await see('notifications', 'Notifications');
    await page.locator('ul.notifications li a').first().waitFor({ timeout: WAIT_MS });
    assert.deepEqual(await page.locator('ul.notifications li a').allTextContents(), ['Ada Lovelace sent a file']);
    await wide('notifications');

    // What Contoso's ids name is not there for her.
    for (const [path, title, name] of [
      [`/billing/invoices/${contoso.invoiceId}`, 'Invoice not found', 'billing-other'],
      [`/tasks/${contoso.taskId}`, 'Task not available', 'tasks-other'],
      [`/forms/${contoso.formResponseId}`, 'Form not available', 'forms-other'],
      [`/contracts/${contoso.contractId}`, 'Contract not available', 'contracts-other'],
      [`/messages/${contoso.channelId}`, 'Conversation not found', 'messages-other'],
    ]) {
      await page.goto(`${ws.pages}${path}`);
      await see(name, title);
    }
    assertSameOrigin(portal, v);
    await v.context.close();

    // Fay sees every company: both clients' things, by name.
    const fp = full.page;
    /** Fay's page `title` is open (pictured on the first backend, for a few). */
    const fullSee = (name: string | null, title: string) =>
      shots && name ? arrived(full, `staff-full-${name}-1280`, title) : reached(full, '', title);
    const fullNav = fp.getByRole('navigation', { name: 'Portal' });
    await fp.reload();
    await fullSee('home', 'Home');
    await fp.getByText('You see the clients of every company').waitFor();
    await fullNav.getByRole('link', { name: /^Messages/ }).click();
    await fullSee(null, 'Messages');
    const fullConversations = fp.getByRole('list', { name: 'Conversations' });
    await fullConversations.getByRole('link', { name: 'Bob Brown New messages' }).waitFor();
    await fullConversations.getByRole('link', { name: /^Ada Lovelace/ }).waitFor();
    await fullNav.getByRole('link', { name: 'Files' }).click();
    await fullSee(null, 'Files');
    await fp.locator('ul.channels').getByRole('link', { name: 'Bob Brown' }).waitFor();
    assert.deepEqual((await fp.locator('ul.channels').getByRole('link').allTextContents()).sort(), ['Ada Lovelace', 'Bob Brown']);
    await fullNav.getByRole('link', { name: 'Billing' }).click();
    await fullSee('billing', 'Billing');
    const fullInvoices = fp.getByRole('table', { name: 'Invoices, newest first' });
    await reads(fullInvoices, 'Bob Brown');
    await reads(fullInvoices, 'Ada Lovelace');
    assert.deepEqual(
      (await rowsOf(fullInvoices)).map((row) => row.split(' | ').slice(0, 3).join(' | ')),
      ['Invoice 0002 | Bob Brown | $120.00', 'Invoice 0001 | Ada Lovelace | $120.00'],
    );
    await fullNav.getByRole('link', { name: /^Tasks/ }).click();
    await fullSee('tasks', 'Tasks');
    const fullToDo = fp.getByRole('region', { name: 'To do', exact: true });
    const fullDone = fp.getByRole('region', { name: 'Done', exact: true });
    await reads(fullToDo, 'Bob Brown');
    await reads(fullDone, 'Lin Limited');
    assert.deepEqual(await cardsOf(fullToDo), [
      'Plan the quarter | No due date · You | moves',
      'Contoso: send the W-9 | No due date · Bob Brown | moves',
    ]);
    assert.deepEqual(await cardsOf(fullDone), [
      'Review the notes | No due date · Lin Limited | read-only',
      'Northwind: send the W-9 | No due date · Ada Lovelace | moves',
    ]);
    for (const [label, table] of [
      ['Forms', 'Waiting for answers, newest first'],
      ['Contracts', 'Waiting for a signature, newest first'],
    ]) {
      await fullNav.getByRole('link', { name: label }).click();
      await fullSee(null, label);
      const rows = fp.getByRole('table', { name: table });
      await reads(rows, 'Bob Brown');
      await reads(rows, 'Ada Lovelace');
      assert.deepEqual(
        (await rowsOf(rows)).map((row) => row.split(' | ')[1]),
        ['Bob Brown', 'Ada Lovelace'],
      );
    }
    await fullNav.getByRole('link', { name: 'Apps' }).click();
    await fullSee(null, 'Apps');
    await fp.getByRole('link', { name: 'contoso.reports.example (opens in a new tab)' }).waitFor();
    await fp.getByRole('link', { name: 'northwind.reports.example (opens in a new tab)' }).waitFor();
    await fullNav.getByRole('link', { name: /^Notifications/ }).click();
    await fullSee(null, 'Notifications');
    await fp.locator('ul.notifications li a').first().waitFor({ timeout: WAIT_MS });
    assert.deepEqual(await fp.locator('ul.notifications li a').allTextContents(), ['Bob Brown sent a file']);
    assertSameOrigin(portal, full);
    await full.context.close();
  } finally {
    await portal.close();
  }
}

/** The due date the invoices' table shows (a day in the reader's locale: read, not computed). */
async function dueOf(table: Locator): Promise<string> {
  return ((await table.locator('tbody tr').first().locator('td').last().textContent()) ?? '').trim();
}
