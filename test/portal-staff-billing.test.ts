// Rule (issue 45 point 3: staff bill from the portal; tested on both backends). A workspace (a sandbox: it has a test
// clock) of two companies, Northwind and Contoso, a product with a one-time and a monthly price on the admin surface.
// Fay, an admin, at 1280 px: creates an invoice for Ada (Northwind's client) from the one-time price (2 × $150.00,
// 10% tax, a memo, 14 days) as a draft, previews its PDF (a PDF, through the portal's own origin), finalises and sends
// it; Ada, signed in in another browser at 320 px, pays it with a test card; Fay sees it paid, is refused a refund of
// more than was paid (the server's word beside the amount) and refunds half (the exact cents through the API), voids a
// second invoice, marks a third paid (a manual payment of its total), starts a subscription from the monthly price and
// cancels it, and advances the test clock a day. The new invoice page and an invoice again at 320 px. Lin, staff
// limited to Contoso, sees none of these invoices or the subscription, no billing control, the clock without Advance,
// and Ada's invoice by its address is not found. Axe-clean, nothing from another origin; the pictures and axe on the
// first backend.
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
  reached,
} from './helpers/portal-pages.js';

type Invoice = { id: string; number?: string; status: string; total: number; subtotal: number; taxAmount: number; amountRefunded?: number };
type Payment = { id: string; status: string; amount: number; paymentMethod: string; amountRefunded?: number };

/** What a locator holds as text, white space aside. */
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

for (const [at, backend] of BACKENDS.entries()) {
  test(`an admin bills from the portal: invoice, PDF, send, refund, void, mark paid, subscription, test clock (${backend})`, {
    timeout: 180_000,
  }, async (t) => {
    const portal = await startPortal({ backend, env: { RATE_LIMIT_WRITE_CAPACITY: '100' } });
    t.after(() => portal.close());
    await billingDesk(portal, at === 0);
  });
}

async function billingDesk(portal: PortalServer, shots: boolean) {
  /** A page has opened: the full checks (picture, axe) on the first backend, the rule's on the other. */
  const land = (v: Visit, name: string, title: string) => (shots ? arrived(v, name, title) : reached(v, name, title));
  const check = (v: Visit, name: string) => (shots ? checkPage(v, name) : Promise.resolve());

  const ws = await newWorkspace(portal, 'Acme');
  const operator = async (path: string, body: unknown) => {
    const answer = await portal.http<{ id: string }>(
      'POST',
      `/admin/workspaces/${ws.workspaceId}${path}`,
      {
        authorization: `Bearer ${ADMIN_TOKEN}`,
      },
      body,
    );
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    return answer.body;
  };
  const north = await ws.call<{ id: string }>('POST', '/v1/companies', { name: 'Northwind' });
  const contoso = await ws.call<{ id: string }>('POST', '/v1/companies', { name: 'Contoso' });
  const product = await operator('/products', { name: 'Consulting' });
  const hourly = await operator('/prices', { productId: product.id, amount: 15_000, currency: 'usd' });
  const support = await operator('/products', { name: 'Support plan' });
  await operator('/prices', { productId: support.id, amount: 4_900, currency: 'usd', interval: 'month' });

  // Ada, Northwind's client, signed in in a browser of her own.
  const ada = await visit(portal, 320);
  const adaId = await signedInClient(ws, ada, {
    email: 'ada@northwind.test',
    givenName: 'Ada',
    familyName: 'Lovelace',
    companyId: north.id,
  });

  // Fay, an admin, at 1280 px.
  const fay = await visit(portal, 1280);
  fay.page.on('dialog', (dialog) => void dialog.accept());
  await signedInStaff(portal, ws, fay, { email: 'fay@acme.test', givenName: 'Fay', familyName: 'Full', role: 'admin' });
  const fp = fay.page;
  await fp.getByRole('navigation', { name: 'Portal' }).getByRole('link', { name: 'Billing' }).click();
  await land(fay, 'staff-billing-1280', 'Billing');
  await fp.getByText('No invoices yet.').waitFor();
  await fp.getByRole('link', { name: 'New invoice' }).click();
  await land(fay, 'staff-billing-new-invoice-1280', 'New invoice');

  // The invoice: Ada found by a search, 2 × the one-time price, 10% tax, a memo, 14 days; a draft.
  await fp.getByLabel('Find a client or company').fill('ada');
  await fp.getByRole('button', { name: 'Find', exact: true }).click();
  await fp.getByRole('option', { name: 'Ada Lovelace (ada@northwind.test)' }).waitFor({ state: 'attached' });
  await fp.getByLabel('Bill to').selectOption({ label: 'Ada Lovelace (ada@northwind.test)' });
  await fp.getByLabel('Price').selectOption({ label: 'Consulting: $150.00' });
  await fp.getByLabel('Quantity').fill('2');
  await fp.getByLabel('Tax (%)').fill('10');
  await fp.getByLabel('Memo').fill('Thank you for your business.');
  await fp.getByLabel('Days to pay').fill('14');
  await fp.getByRole('button', { name: 'Create the draft' }).click();
  await land(fay, 'staff-billing-draft-1280', 'Draft invoice');
  const invoiceId = /\/billing\/invoices\/([^/?#]+)/.exec(fp.url())?.[1] ?? '';
  const draft = await ws.call<Invoice & { clientId: string; memo: string; daysUntilDue: number }>('GET', `/v1/invoices/${invoiceId}`);
  assert.deepEqual(
    [draft.status, draft.clientId, draft.subtotal, draft.taxAmount, draft.total, draft.memo, draft.daysUntilDue],
    ['draft', adaId, 30_000, 3_000, 33_000, 'Thank you for your business.', 14],
  );
  await assertReads(fp.locator('main'), 'Status Draft', 'Total $330.00', 'Consulting', '2', '$150.00', '$300.00', 'Tax (10%) $30.00');

  // Its PDF, previewed (shown inline, in a new tab) through the portal's own path (the session's cookie reaches it).
  const preview = fp.getByRole('link', { name: 'Preview the PDF (opens in a new tab)' });
  const href = (await preview.getAttribute('href')) ?? '';
  assert.equal(href, `/portal/${ws.workspaceId}/v1/invoices/${invoiceId}/pdf?disposition=inline`);
  const pdf = await fp.request.get(href);
  assert.deepEqual(
    [pdf.status(), pdf.headers()['content-type'], pdf.headers()['content-disposition']],
    [200, 'application/pdf', `inline; filename="draft-${invoiceId}.pdf"`],
  );
  assert.equal((await pdf.body()).subarray(0, 5).toString(), '%PDF-');

  // Finalised and sent: its number, open.
  await fp.getByRole('button', { name: 'Finalize and send' }).click();
  await fp.getByRole('heading', { level: 1, name: 'Invoice 0001' }).waitFor();
  await fp.getByRole('status').getByText('The invoice was finalised and sent.').waitFor();
  const sent = await ws.call<Invoice & { sentDate?: string }>('GET', `/v1/invoices/${invoiceId}`);
  assert.deepEqual([sent.number, sent.status, sent.total, Boolean(sent.sentDate)], ['0001', 'open', 33_000, true]);
  await check(fay, 'staff-billing-sent-1280');

  // Ada pays it with a test card in her portal.
  await ada.page.goto(`${ws.pages}/billing/invoices/${invoiceId}`);
  await land(ada, 'staff-billing-client-pays-320', 'Invoice 0001');
  await ada.page.getByLabel('Card number').fill('4242424242424242');
  await ada.page.getByLabel('Expiry month').fill('12');
  await ada.page.getByLabel('Expiry year').fill('34');
  await ada.page.getByLabel('Security code').fill('123');
  await ada.page.getByRole('button', { name: 'Pay $330.00' }).click();
  await ada.page.getByText('Paid, thank you: $330.00. Your receipt is below.').waitFor();
  assert.equal(await ada.page.getByRole('button', { name: 'Finalize and send' }).count(), 0, 'no staff control for a client');
  assert.equal(await ada.page.getByRole('region', { name: 'Manage this invoice' }).count(), 0);
  assertSameOrigin(portal, ada);
  await ada.context.close();

  // Fay sees it paid; more than was paid is refused beside the amount; half is refunded.
  await fp.reload();
  await fp.getByRole('heading', { level: 1, name: 'Invoice 0001' }).waitFor();
  await fp.getByRole('heading', { name: 'Refund the payment of $330.00' }).waitFor();
  await assertReads(fp.getByRole('region', { name: 'Summary' }), 'Status Paid');
  const amount = fp.getByLabel('Amount to refund');
  await amount.fill('400.00');
  await fp.getByRole('button', { name: 'Refund', exact: true }).click();
  await fp.waitForFunction(() => document.querySelector('input[aria-invalid="true"]') !== null, null, { timeout: WAIT_MS });
  assert.equal(await amount.getAttribute('aria-invalid'), 'true', 'the server names body.amount');
  await check(fay, 'staff-billing-over-refund-1280');
  await amount.fill('165.00');
  await fp.getByLabel('Reason').fill('Half the hours were not used');
  await fp.getByRole('button', { name: 'Refund', exact: true }).click();
  await fp.getByRole('status').getByText('$165.00 was refunded.').waitFor();
  await fp.getByRole('table', { name: 'Refunds of the payment of $330.00' }).getByText('Half the hours were not used').waitFor();
  const paid = await ws.call<Invoice>('GET', `/v1/invoices/${invoiceId}`);
  assert.deepEqual([paid.status, paid.amountRefunded], ['paid', 16_500]);
  const payments = (await ws.call<{ data: Payment[] }>('GET', `/v1/payments?invoiceId=${invoiceId}`)).data;
  assert.deepEqual(
    payments.map((p) => [p.status, p.amount, p.paymentMethod, p.amountRefunded]),
    [['succeeded', 33_000, 'creditCard', 16_500]],
  );
  const refunds = (await ws.call<{ data: { amount: number; status: string }[] }>('GET', `/v1/refunds?invoiceId=${invoiceId}`)).data;
  assert.deepEqual(
    refunds.map((r) => [r.amount, r.status]),
    [[16_500, 'succeeded']],
  );
  await check(fay, 'staff-billing-refunded-1280');

  // A second invoice voided, a third marked paid (each after a confirmation).
  const open = () =>
    ws.call<Invoice>('POST', '/v1/invoices', { clientId: adaId, lineItems: [{ priceId: hourly.id, quantity: 1 }], daysUntilDue: 7 });
  const toVoid = await open();
  const toMark = await open();
  await fp.goto(`${ws.pages}/billing/invoices/${toVoid.id}`);
  await fp.getByRole('heading', { level: 1, name: 'Invoice 0002' }).waitFor();
  await fp.getByRole('button', { name: 'Void' }).click();
  await fp.getByRole('status').getByText('Invoice 0002 was voided.').waitFor();
  await fp.getByText('This invoice was voided: nothing is due.').waitFor();
  assert.equal((await ws.call<Invoice>('GET', `/v1/invoices/${toVoid.id}`)).status, 'void');
  await fp.goto(`${ws.pages}/billing/invoices/${toMark.id}`);
  await fp.getByRole('heading', { level: 1, name: 'Invoice 0003' }).waitFor();
  await fp.getByRole('button', { name: 'Mark as paid' }).click();
  await fp.getByRole('status').getByText('Invoice 0003 was marked paid.').waitFor();
  await fp.getByText('Recorded by us (paid another way)').waitFor();
  assert.equal((await ws.call<Invoice>('GET', `/v1/invoices/${toMark.id}`)).status, 'paid');
  assert.deepEqual(
    (await ws.call<{ data: Payment[] }>('GET', `/v1/payments?invoiceId=${toMark.id}`)).data.map((p) => [p.amount, p.paymentMethod]),
    [[15_000, 'manual']],
  );

  // A subscription from the monthly price, started then cancelled.
  await fp.getByRole('navigation', { name: 'Portal' }).getByRole('link', { name: 'Billing' }).click();
  await fp.getByRole('heading', { level: 1, name: 'Billing' }).waitFor();
  const start = fp.getByRole('region', { name: 'Start a subscription' });
  await start.getByLabel('Find a client or company').fill('north');
  await start.getByRole('button', { name: 'Find', exact: true }).click();
  await start.getByRole('option', { name: 'Northwind' }).waitFor({ state: 'attached' });
  await start.getByLabel('Bill to').selectOption({ label: 'Northwind' });
  await start.getByLabel('Bill', { exact: true }).selectOption({ label: 'Support plan: $49.00 every month' });
  await start.getByLabel('Days to pay each invoice').fill('7');
  await start.getByRole('button', { name: 'Start the subscription' }).click();
  await start.getByRole('status').getByText('Support plan was started: its first invoice is made now.').waitFor();
  const subscriptions = fp.getByRole('table', { name: 'Subscriptions, newest first' });
  await subscriptions.getByText('Northwind (the company)', { exact: true }).waitFor();
  await assertReads(subscriptions.locator('tbody'), 'Support plan', 'Northwind', '$49.00 every month', 'Active');
  const [subscription] = (
    await ws.call<{ data: { id: string; status: string; companyId: string; clientId?: string }[] }>('GET', '/v1/subscriptions')
  ).data;
  assert.deepEqual([subscription?.status, subscription?.companyId, subscription?.clientId], ['active', north.id, undefined]);
  await check(fay, 'staff-billing-subscription-1280');
  await subscriptions.getByRole('button', { name: 'Cancel the subscription to Support plan' }).click();
  await fp.getByRole('status').getByText('The subscription to Support plan was cancelled.').waitFor();
  // The list is read again (it shows the last answer meanwhile).
  await subscriptions.getByText('Cancelled', { exact: true }).waitFor();
  await assertReads(subscriptions.locator('tbody'), 'Support plan', 'Cancelled', 'None');
  assert.equal((await ws.call<{ status: string }>('GET', `/v1/subscriptions/${subscription?.id}`)).status, 'cancelled');

  // The sandbox's test clock, a day ahead.
  const clock = fp.getByRole('region', { name: 'Test clock' });
  await clock.getByLabel('Days').fill('1');
  await clock.getByRole('button', { name: 'Advance the clock' }).click();
  await clock
    .getByRole('status')
    .getByText(/^The test clock now reads/)
    .waitFor();
  await clock.getByText(/1 day ahead of the real time/).waitFor();
  const moved = await ws.call<{ aheadBySeconds: number }>('GET', '/v1/test-clock');
  assert.ok(moved.aheadBySeconds >= 86_400 && moved.aheadBySeconds < 86_400 + 600, JSON.stringify(moved));
  await check(fay, 'staff-billing-clock-1280');

  // At 320 px: the overview, the new invoice page and a paid invoice.
  if (shots) {
    await fp.setViewportSize({ width: 320, height: 800 });
    await fp.reload();
    await arrived(fay, 'staff-billing-320', 'Billing');
    await fp.goto(`${ws.pages}/billing/new-invoice`);
    await arrived(fay, 'staff-billing-new-invoice-320', 'New invoice');
    await fp.goto(`${ws.pages}/billing/invoices/${invoiceId}`);
    await arrived(fay, 'staff-billing-invoice-320', 'Invoice 0001');
  }
  assertSameOrigin(portal, fay);
  await fay.context.close();

  // Lin, staff limited to Contoso: none of Northwind's invoices, no billing control, the clock without Advance.
  const lin = await visit(portal, 320);
  await signedInStaff(portal, ws, lin, {
    email: 'lin@acme.test',
    givenName: 'Lin',
    familyName: 'Limited',
    role: 'staff',
    companyAccessList: [contoso.id],
  });
  await lin.page.goto(`${ws.pages}/billing`);
  await land(lin, 'staff-billing-limited-320', 'Billing');
  await lin.page.getByText('No invoices yet.').waitFor();
  await lin.page.getByText('No subscriptions.').waitFor();
  await lin.page
    .getByRole('region', { name: 'Test clock' })
    .getByText(/1 day ahead/)
    .waitFor();
  const main = lin.page.locator('main');
  assert.equal(await main.getByRole('button', { name: 'Advance the clock' }).count(), 0);
  assert.equal(await main.getByRole('link', { name: 'New invoice' }).count(), 0);
  assert.equal(await main.getByRole('region', { name: 'Start a subscription' }).count(), 0);
  assert.ok(!((await main.textContent()) ?? '').includes('Northwind'), 'nothing of Northwind');
  await lin.page.goto(`${ws.pages}/billing/invoices/${invoiceId}`);
  await land(lin, 'staff-billing-limited-invoice-320', 'Invoice not found');
  await lin.page.goto(`${ws.pages}/billing/new-invoice`);
  await lin.page.getByRole('heading', { level: 1 }).waitFor();
  assert.equal(await lin.page.getByRole('button', { name: 'Create the draft' }).count(), 0, 'no new invoice for staff');
  assertSameOrigin(portal, lin);
  await lin.context.close();
}
