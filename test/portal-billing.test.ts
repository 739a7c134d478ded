// The portal's billing section (web/portal/src/pages/billing*.tsx) in a real browser, as a client: the workspace
// bills them through the API (a product and its prices, two open invoices and a void one, a subscription), the client
// finds the open invoices from the home page, filters the list by status, opens an invoice (its lines, totals and
// PDF), pays it with a declining test card (told so beside the form, nothing charged), then with a good one (the
// button disabled while paying, one request for a double click, its Idempotency-Key replayed by the server, a second
// payment refused), sees the receipt and the payment history; the staff refunds part through the API and the client
// sees it; a card saved, another added (a number the processor refuses named beside its field) and removed. At
// 320 px throughout, every page once more at 1280 px; axe-clean, nothing from another origin. On each backend: a
// `portal serve` process on SQLite, then on a PostgreSQL database of its own (when PORTAL_TEST_POSTGRES_URL is set).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Locator } from 'playwright-core';
import { WAIT_MS } from './helpers/browser.js';
import { BACKENDS } from './helpers/harness.js';
import {
  ADMIN_TOKEN,
  type PortalServer,
  type Visit,
  arrived,
  assertSameOrigin,
  checkPage,
  newWorkspace,
  signedInClient,
  signedInStaff,
  startPortal,
  visit,
} from './helpers/portal-pages.js';

/** The server of the test running (one per backend: the journey runs on SQLite, and on PostgreSQL when it is set). */
let portal: PortalServer;

type Invoice = { id: string; number: string; status: string; total: number };
type Payment = { id: string; status: string };

/** What a locator holds as text, without its white space (its text content runs table cells and terms together). */
const compact = async (locator: Locator) => ((await locator.textContent()) ?? '').replace(/\s+/g, '');

/** That a locator's text reads `parts`, in this order (white space aside). */
async function assertReads(locator: Locator, ...parts: string[]) {
  const text = await compact(locator);
  let at = 0;
  for (const part of parts.map((p) => p.replace(/\s+/g, ''))) {
    const found = text.indexOf(part, at);
    assert.ok(found >= 0, `"${part}" after ${JSON.stringify(text.slice(0, at))} in ${JSON.stringify(text)}`);
    at = found + part.length;
  }
}

/** Until the invoices' table (the page's first) has `count` rows: the list shows the last answer while it loads the next. */
const rowsSettle = (v: Visit, count: number) =>
  v.page.waitForFunction((n) => document.querySelectorAll('table.data')[0]?.querySelectorAll('tbody tr').length === n, count, {
    timeout: WAIT_MS,
  });

/** The saved cards' rows, as text. */
const cardRows = async (v: Visit) =>
  (await v.page.getByRole('table', { name: 'Saved cards, newest first' }).locator('tbody tr').allTextContents()).map((row) =>
    row.replace(/\s+/g, ''),
  );

/** Fills the card form's fields (expiry as a card shows it: MM / YY). */
async function fillCard(v: Visit, number: string) {
  await v.page.getByLabel('Card number').fill(number);
  await v.page.getByLabel('Expiry month').fill('12');
  await v.page.getByLabel('Expiry year').fill('34');
  await v.page.getByLabel('Security code').fill('123');
}

for (const [at, backend] of BACKENDS.entries()) {
  test(`a client pays an invoice (declined, then paid), sees receipt, history and refund, and keeps their cards (${backend})`, {
    timeout: 120_000,
  }, async (t) => {
    portal = await startPortal({ backend });
    t.after(() => portal.close());
    await payingJourney(at === 0);
  });
}

/** `wide`: each page again at 1280 px (on the first backend only: the second would only repeat its pictures). */
async function payingJourney(wide: boolean) {
  const ws = await newWorkspace(portal, 'Acme Studio');
  /** The catalog is made on the admin surface (the operator's). */
  const admin = async (path: string, body: unknown) => {
    const answer = await portal.http<{ id: string }>(
      'POST',
      `/admin/workspaces/${ws.workspaceId}${path}`,
      { authorization: `Bearer ${ADMIN_TOKEN}` },
      body,
    );
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    return answer.body;
  };
  const product = await admin('/products', { name: 'Design retainer' });
  const price = await admin('/prices', { productId: product.id, amount: 10_000, currency: 'usd' });
  const monthly = await admin('/prices', { productId: product.id, amount: 5_000, currency: 'usd', interval: 'month' });

  const v = await visit(portal, 320);
  const clientId = await signedInClient(ws, v, { email: 'ada@client.test', givenName: 'Ada', familyName: 'Lovelace' });
  const toPay = await ws.call<Invoice>('POST', '/v1/invoices', {
    clientId,
    lineItems: [
      { priceId: price.id, quantity: 1, description: 'Design retainer, January' },
      { amount: 2_500, quantity: 2, description: 'Extra revisions' },
    ],
    taxPercentage: 10,
    daysUntilDue: 14,
    memo: 'Thank you for your business.',
  });
  assert.deepEqual([toPay.number, toPay.status, toPay.total], ['0001', 'open', 16_500]);
  await ws.call('POST', '/v1/invoices', {
    clientId,
    lineItems: [{ amount: 4_000, quantity: 1, description: 'Hosting' }],
    daysUntilDue: 30,
  });
  const voided = await ws.call<Invoice>('POST', '/v1/invoices', {
    clientId,
    lineItems: [{ amount: 900, quantity: 1, description: 'Sent by mistake' }],
    daysUntilDue: 7,
  });
  await admin(`/invoices/${voided.id}/void`, undefined);
  // Starting in ten days: not billed yet, its next charge then.
  await ws.call('POST', '/v1/subscriptions', {
    clientId,
    lineItems: [{ priceId: monthly.id, quantity: 1, description: 'Care plan' }],
    taxPercentage: 10,
    daysUntilDue: 7,
    scheduleStartDate: Math.floor(Date.now() / 1000) + 10 * 86_400,
  });

  // Home: what waits, counted from the API; the link leads to billing.
  await v.page.reload();
  await v.page.getByRole('link', { name: '2 open invoices' }).click();
  await arrived(v, 'billing-invoices-320', 'Billing');
  const nav = v.page.getByRole('navigation', { name: 'Portal' });
  await assertReads(nav.getByRole('link', { name: /^Billing/ }), 'Billing (2) waiting');
  const invoices = v.page.getByRole('table', { name: 'Invoices, newest first' });
  assert.deepEqual(await invoices.getByRole('link').allTextContents(), ['Invoice 0003', 'Invoice 0002', 'Invoice 0001']);
  const subscriptions = v.page.getByRole('table', { name: 'Subscriptions, newest first' });
  await assertReads(subscriptions.locator('tbody'), 'Care plan', '$55.00 every month', 'Not started', ', as an invoice to pay');

  // Filtered by status, with the keyboard: void, then paid (none yet), then all again.
  await v.page.getByLabel('Status').focus();
  await v.page.getByLabel('Status').selectOption('void');
  await v.page.keyboard.press('Tab'); // to Show
  await v.page.keyboard.press('Enter');
  await rowsSettle(v, 1);
  assert.deepEqual(await invoices.getByRole('link').allTextContents(), ['Invoice 0003']);
  await v.page.getByLabel('Status').selectOption('paid');
  await v.page.getByRole('button', { name: 'Show' }).click();
  await v.page.getByText('No paid invoices.').waitFor();
  await v.page.getByLabel('Status').selectOption('');
  await v.page.getByRole('button', { name: 'Show' }).click();
  await rowsSettle(v, 3);
  await v.page.getByRole('link', { name: 'Invoice 0001' }).click();

  // The invoice: its lines and totals, its PDF through the API's own path (the session's cookie reaches it).
  await arrived(v, 'billing-invoice-320', 'Invoice 0001');
  const main = v.page.locator('main');
  await assertReads(main, 'Status Open', 'Total $165.00', 'Due', 'Design retainer, January', '1', '$100.00', '$100.00');
  await assertReads(main, 'Extra revisions', '2', '$25.00', '$50.00', 'Subtotal $150.00', 'Tax (10%) $15.00', 'Total $165.00');
  await assertReads(main, 'Thank you for your business.');
  const pdfHref = await v.page.getByRole('link', { name: 'Download the PDF' }).getAttribute('href');
  assert.equal(pdfHref, `/portal/${ws.workspaceId}/v1/invoices/${toPay.id}/pdf`);
  const pdf = await v.page.request.get(pdfHref);
  assert.deepEqual([pdf.status(), pdf.headers()['content-type']], [200, 'application/pdf']);
  assert.equal((await pdf.body()).subarray(0, 5).toString(), '%PDF-');

  // A declining test card, sent with Enter: declined, said beside the button (the alert takes the focus).
  await fillCard(v, '4000 0000 0000 0002');
  await v.page.getByLabel('Security code').press('Enter');
  const alert = v.page.getByRole('alert');
  await alert.waitFor();
  await assertReads(alert, 'Your card was declined.', 'Nothing was charged', 'Decline code: generic_decline');
  await v.page.waitForFunction(() => document.activeElement?.getAttribute('role') === 'alert', null, { timeout: WAIT_MS });
  await v.page.getByRole('heading', { name: 'Declined attempts' }).waitFor();
  await checkPage(v, 'billing-invoice-declined-320');

  // A good card, saved: the button is disabled while paying (a second click sends nothing), one payment request, paid.
  let release = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const payRequests: { key: string | undefined; body: string | null }[] = [];
  await v.page.route('**/v1/invoices/*/pay', async (route) => {
    payRequests.push({ key: route.request().headers()['idempotency-key'], body: route.request().postData() });
    await held;
    await route.continue();
  });
  await fillCard(v, '4242424242424242');
  await v.page.getByLabel('Save this card for later payments').check();
  await v.page.getByRole('button', { name: 'Pay $165.00' }).click();
  const paying = v.page.getByRole('button', { name: 'Paying…' });
  await paying.waitFor();
  assert.equal(await paying.isDisabled(), true, 'the button is disabled while paying');
  await paying.click({ force: true, noWaitAfter: true });
  await v.page.waitForTimeout(300);
  release();
  await v.page.getByText('Paid, thank you: $165.00. Your receipt is below.').waitFor();
  await v.page.unroute('**/v1/invoices/*/pay');
  assert.equal(payRequests.length, 1, 'one payment request');
  const [{ key, body }] = payRequests;
  assert.match(key ?? '', /^[0-9a-f]{32}$/, 'the payment carried an Idempotency-Key');
  // The page reads the invoice and its payments again, each in its own request: the receipt comes with the second.
  await main.getByRole('heading', { level: 2, name: 'Receipt' }).waitFor();
  await assertReads(
    main,
    'Status Paid',
    'Receipt',
    'Amount paid $165.00',
    'Paid with Visa ending 4242',
    'Declined attempts',
    'Visa ending 0002',
  );
  assert.equal(await v.page.getByRole('button', { name: /^Pay/ }).count(), 0, 'a paid invoice has nothing to pay');
  await checkPage(v, 'billing-invoice-paid-320');

  // The server's side, in the client's own session: the same key answers the same payment again; another is refused.
  const payAgain = (idempotencyKey: string | undefined) =>
    v.page.evaluate(
      async ({ url, idempotencyKey, body }) => {
        const headers: Record<string, string> = { 'content-type': 'application/json', 'x-portal-request': '1' };
        if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
        const answer = await fetch(url, { method: 'POST', headers, body: body ?? '{}' });
        return { status: answer.status, replayed: answer.headers.get('idempotent-replayed'), body: await answer.json() };
      },
      { url: `/portal/${ws.workspaceId}/v1/invoices/${toPay.id}/pay`, idempotencyKey, body },
    );
  const replayed = await payAgain(key);
  assert.deepEqual([replayed.status, replayed.replayed, replayed.body.status], [200, 'true', 'paid']);
  const second = await payAgain(undefined);
  assert.deepEqual([second.status, second.body.message], [409, 'Only an open invoice can be paid; this one is paid.']);
  const payments = (await ws.call<{ data: Payment[] }>('GET', `/v1/payments?invoiceId=${toPay.id}`)).data;
  assert.deepEqual(
    payments.map((p) => p.status),
    ['succeeded', 'failed'],
    'one payment went through, however often it was asked',
  );

  // The payment history: the payment, and the declined attempt.
  await v.page.getByRole('navigation', { name: 'Billing' }).getByRole('link', { name: 'Payment history' }).click();
  await arrived(v, 'billing-payments-320', 'Payment history');
  const history = v.page.getByRole('table', { name: 'Payments, newest first' });
  assert.equal(await history.locator('tbody tr').count(), 2);
  await assertReads(history.locator('tbody tr').nth(0), 'Invoice 0001', '$165.00', 'Visa ending 4242', 'Paid');
  await assertReads(
    history.locator('tbody tr').nth(1),
    'Invoice 0001',
    '$165.00',
    'Visa ending 0002',
    'Declined',
    'Your card was declined.',
  );

  // The staff refunds part through the API; the client sees it on the payment and on the invoice.
  await ws.call('POST', '/v1/refunds', { paymentId: payments[0].id, amount: 2_500, reason: 'One revision less' });
  await v.page.reload();
  await arrived(v, 'billing-payments-refunded-320', 'Payment history');
  await assertReads(history.locator('tbody tr').first(), '$165.00 Refunded $25.00');
  await history.getByRole('link', { name: 'Invoice 0001' }).first().click();
  await arrived(v, 'billing-invoice-refunded-320', 'Invoice 0001');
  await assertReads(main, 'Paid', 'Refunded $25.00', 'Receipt', 'Refunded $25.00');
  await assertReads(nav.getByRole('link', { name: /^Billing/ }), 'Billing (1) waiting');

  // Saved cards: the card kept when paying (the declined one was not), another added and removed.
  await v.page.getByRole('navigation', { name: 'Billing' }).getByRole('link', { name: 'Saved cards' }).click();
  await arrived(v, 'billing-cards-320', 'Saved cards');
  const cards = v.page.getByRole('table', { name: 'Saved cards, newest first' });
  const kept = await cardRows(v);
  assert.equal(kept.length, 1, kept.join(' | '));
  assert.ok(kept[0].startsWith('Visaending4242Chargedautomatically12/2034'), kept[0]);
  await fillCard(v, '4111111111111111');
  await v.page.getByRole('button', { name: 'Save the card' }).click();
  // The API's word about the number, beside its field (and read with it).
  const problem = v.page.locator('.field-error', { hasText: 'Is not a sandbox test card' });
  await problem.waitFor();
  const number = v.page.getByLabel('Card number');
  assert.equal(await number.getAttribute('aria-invalid'), 'true');
  assert.ok((await number.getAttribute('aria-describedby'))?.includes((await problem.getAttribute('id')) ?? '-'));
  await checkPage(v, 'billing-cards-refused-320');
  await v.page.getByLabel('Card number').fill('5555 5555 5555 4444');
  await v.page.getByRole('button', { name: 'Save the card' }).click();
  await v.page.getByText('Mastercard ending 4444 saved.', { exact: false }).waitFor();
  await cards.getByText('Mastercard ending 4444').waitFor();
  const withTwo = await cardRows(v);
  assert.ok(withTwo[0].startsWith('Mastercardending4444Chargedautomatically'), withTwo[0]);
  assert.ok(withTwo[1].startsWith('Visaending4242') && !withTwo[1].includes('Charged'), withTwo[1]);
  v.page.once('dialog', (dialog) => void dialog.accept());
  await cards.getByRole('button', { name: 'Remove Mastercard ending 4444, expires 12/2034' }).click();
  await v.page.getByText('Mastercard ending 4444 removed.').waitFor();
  await v.page.waitForFunction(() => !document.querySelector('table')?.textContent?.includes('Mastercard'), null, { timeout: WAIT_MS });
  const left = await cardRows(v);
  assert.equal(left.length, 1, left.join(' | '));
  assert.ok(left[0].startsWith('Visaending4242Chargedautomatically'), left[0]);
  assertSameOrigin(portal, v);

  // Each page at 1280 px, in the same session.
  if (wide) {
    const atLaptop = await visit(portal, 1280);
    await atLaptop.context.addCookies(await v.context.cookies());
    for (const [path, name, title] of [
      ['/billing', 'billing-invoices-1280', 'Billing'],
      [`/billing/invoices/${toPay.id}`, 'billing-invoice-1280', 'Invoice 0001'],
      ['/billing/payments', 'billing-payments-1280', 'Payment history'],
      ['/billing/cards', 'billing-cards-1280', 'Saved cards'],
    ]) {
      await atLaptop.page.goto(`${ws.pages}${path}`);
      await arrived(atLaptop, name, title);
    }
    assertSameOrigin(portal, atLaptop);
    await atLaptop.context.close();
  }
  await v.context.close();

  // Staff signed in (by an e-mailed link) read the invoices, drafts included, each with whom it bills, and are
  // offered neither paying nor cards; nothing waits for them there.
  await ws.call('POST', '/v1/invoices', { clientId, lineItems: [{ amount: 700, quantity: 1 }], daysUntilDue: 7, createDraft: true });
  const staff = await visit(portal, 1280);
  await signedInStaff(portal, ws, staff, { email: 'sam@acme.test', givenName: 'Sam', familyName: 'Staff' });
  await staff.page.goto(`${ws.pages}/billing`);
  await arrived(staff, 'billing-staff-1280', 'Billing');
  assert.deepEqual(await staff.page.getByRole('table', { name: 'Invoices, newest first' }).getByRole('link').allTextContents(), [
    'Draft invoice',
    'Invoice 0003',
    'Invoice 0002',
    'Invoice 0001',
  ]);
  await staff.page.getByRole('table', { name: 'Invoices, newest first' }).getByText('Ada Lovelace').first().waitFor();
  const staffNav = staff.page.getByRole('navigation', { name: 'Billing' });
  assert.deepEqual(await staffNav.getByRole('link').allTextContents(), ['Invoices and subscriptions', 'Payment history']);
  assert.equal(await compact(staff.page.getByRole('navigation', { name: 'Portal' }).getByRole('link', { name: /^Billing/ })), 'Billing');
  await staff.page.getByRole('link', { name: 'Invoice 0002' }).click();
  await arrived(staff, 'billing-staff-invoice-1280', 'Invoice 0002');
  await assertReads(staff.page.locator('main'), 'Open: its client pays it here.');
  assert.equal(await staff.page.getByRole('button', { name: /^Pay/ }).count(), 0);
  assertSameOrigin(portal, staff);
  await staff.context.close();
}
