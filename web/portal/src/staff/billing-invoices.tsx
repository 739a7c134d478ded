// An admin's invoices in the portal (issue 45 point 3): a new invoice from the catalog's prices (or amounts of its
// own) for a client or a company, made as a draft; on an invoice's page its PDF previewed, the draft finalised and sent,
// an open one marked paid or voided, and a paid one's payment refunded, whole or in part. Each through the /v1 API as
// the admin's session; staff with the `staff` role are offered none of it (the API answers them 403).
import { useState } from 'preact/hooks';
import { DataTable } from '../../../kit/list.js';
import { once, useOnceKey } from '../../../kit/once.js';
import { type Loaded, useLoad } from '../../../kit/ui.js';
import { ApiError, ok, v1 } from '../api.js';
import { BASE, Link, navigate } from '../router.js';
import { ErrorMessage, Field, LoadFailed, PageHeading, Status, useAction } from '../ui.js';
import {
  BillingNav,
  Fact,
  Facts,
  type Invoice,
  type Payment,
  StatusBadge,
  formatDay,
  formatMoney,
  invoiceTitle,
} from '../pages/billing-parts.js';
import { NotFoundPage } from '../pages/not-found.js';
import { PartyPicker, partyBody, useBillingAdmin, useCatalog } from './billing-desk.js';

/** "150", "150.5", "1,234.50" as cents; undefined when it is no amount. */
function toCents(text: string): number | undefined {
  const plain = text.trim().replace(/,/g, '');
  const m = /^(\d{1,9})(?:\.(\d{1,2}))?$/.exec(plain);
  if (!m) return undefined;
  return Number(m[1]) * 100 + Number((m[2] ?? '').padEnd(2, '0'));
}

/** A problem found here before sending, shown beside its field as the server's would be. */
const fieldProblem = (path: string, message: string) =>
  new ApiError(400, 'validation_failed', message, [{ path: `body.${path}`, message }]);

/**
 * New invoice (`/billing/new-invoice`): whom it bills, its lines (a price of the catalog and a quantity, or a
 * description and an amount of its own), tax, memo and the days to pay; created as a draft (`POST /v1/invoices` with
 * `createDraft` and an Idempotency-Key), then its page, where it is previewed and sent.
 */
export function NewInvoicePage() {
  // Staff with the `staff` role (and clients) may not create invoices: the page is not theirs.
  return useBillingAdmin() ? <NewInvoice /> : <NotFoundPage />;
}

function NewInvoice() {
  const catalog = useCatalog();
  const [lines, setLines] = useState<number[]>([0]);
  const [nextLine, setNextLine] = useState(1);
  const action = useAction();
  const key = useOnceKey();
  const prices = catalog.data?.prices ?? [];

  const submit = (event: Event) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget as HTMLFormElement);
    const field = (name: string) => String(data.get(name) ?? '').trim();
    void action.run(async () => {
      const lineItems = lines.map((line, at) => {
        const priceId = field(`line-${line}-price`);
        const description = field(`line-${line}-description`);
        const quantity = Number(field(`line-${line}-quantity`) || '1');
        // A price's line says what it is: its product's name, unless described otherwise.
        const price = prices.find((p) => p.id === priceId);
        if (priceId) return { priceId, quantity, description: description || (price ? (catalog.data?.productName(price) ?? '') : '') };
        const amount = toCents(field(`line-${line}-amount`));
        if (amount === undefined) throw fieldProblem(`lineItems.${at}.amount`, 'an amount like 150.00, or choose a price');
        return { amount, quantity, description };
      });
      const tax = field('taxPercentage');
      const memo = field('memo');
      const body = {
        ...partyBody(field('party')),
        lineItems,
        ...(tax ? { taxPercentage: Number(tax) } : {}),
        ...(memo ? { memo } : {}),
        daysUntilDue: Number(field('daysUntilDue')),
        createDraft: true,
      };
      const invoice = await once(key, JSON.stringify(body), (k) =>
        ok(v1.POST('/v1/invoices', { params: { header: { 'idempotency-key': k } }, body })),
      );
      navigate(`/billing/invoices/${invoice.id}`);
    });
  };

  return (
    <>
      <PageHeading title="New invoice" context="Billing" />
      <BillingNav path="/billing/new-invoice" />
      <p>It is made as a draft: preview it, then finalise and send it from its page.</p>
      <ErrorMessage error={action.error} focus codes />
      {catalog.error ? <LoadFailed error={catalog.error} retry={catalog.reload} codes /> : null}
      <form class="stack new-invoice" onSubmit={submit} noValidate>
        <PartyPicker error={action.error} />
        {lines.map((line, at) => (
          <fieldset key={line} class="invoice-line">
            <legend>Line {at + 1}</legend>
            <Field label="Price" name={`lineItems.${at}.priceId`} error={action.error}>
              {(props) => (
                <select {...props} name={`line-${line}-price`}>
                  <option value="">None: the amount below</option>
                  {prices.map((price) => (
                    <option key={price.id} value={price.id}>
                      {catalog.data?.label(price)}
                    </option>
                  ))}
                </select>
              )}
            </Field>
            <Field label="Quantity" name={`lineItems.${at}.quantity`} error={action.error}>
              {(props) => (
                <input
                  {...props}
                  name={`line-${line}-quantity`}
                  type="number"
                  inputMode="decimal"
                  min="0.0001"
                  step="any"
                  defaultValue="1"
                />
              )}
            </Field>
            <Field
              label="Description"
              name={`lineItems.${at}.description`}
              hint="With a price: its product’s name if left empty"
              error={action.error}
            >
              {(props) => <input {...props} name={`line-${line}-description`} maxLength={1000} autocomplete="off" />}
            </Field>
            <Field label="Unit amount" name={`lineItems.${at}.amount`} hint="Without a price, e.g. 150.00" error={action.error}>
              {(props) => <input {...props} name={`line-${line}-amount`} inputMode="decimal" autocomplete="off" />}
            </Field>
            {lines.length > 1 ? (
              <div class="actions">
                <button type="button" class="secondary" onClick={() => setLines(lines.filter((l) => l !== line))}>
                  Remove line {at + 1}
                </button>
              </div>
            ) : null}
          </fieldset>
        ))}
        <div class="actions">
          <button
            type="button"
            class="secondary"
            onClick={() => {
              setLines([...lines, nextLine]);
              setNextLine(nextLine + 1);
            }}
          >
            Add a line
          </button>
        </div>
        <Field label="Tax (%)" name="taxPercentage" hint="0 to 100, up to 3 decimals; on the subtotal" error={action.error}>
          {(props) => <input {...props} type="number" inputMode="decimal" min="0" max="100" step="0.001" />}
        </Field>
        <Field label="Memo" name="memo" hint="Shown on the invoice and its PDF" error={action.error}>
          {(props) => <textarea {...props} maxLength={1000} rows={3} />}
        </Field>
        <Field label="Days to pay" name="daysUntilDue" hint="0 to 30: the due date is the day it is sent plus these" error={action.error}>
          {(props) => <input {...props} type="number" inputMode="numeric" min="0" max="30" step="1" defaultValue="14" />}
        </Field>
        <div class="actions">
          <button type="submit" disabled={action.busy}>
            {action.busy ? 'Creating…' : 'Create the draft'}
          </button>
          <Link href="/billing">Cancel</Link>
        </div>
      </form>
    </>
  );
}

/**
 * What an admin does with one invoice, by its status: a draft is previewed (its PDF) and finalised and sent, or
 * voided; an open one marked paid (a payment made outside the portal) or voided; a paid one's payments refunded.
 */
export function InvoiceDesk({
  invoice,
  payments,
  changed,
}: {
  invoice: Invoice;
  payments: Loaded<{ data: Payment[] }>;
  changed: () => void;
}) {
  const action = useAction();
  const id = invoice.id;
  const title = invoiceTitle(invoice);
  const post = (path: '/v1/invoices/{id}/finalize' | '/v1/invoices/{id}/mark-paid' | '/v1/invoices/{id}/void', done: string) =>
    action.run(async () => {
      await ok(v1.POST(path, { params: { path: { id } } }));
      changed();
      return done;
    });
  const receipts = (payments.data?.data ?? []).filter((payment) => payment.status === 'succeeded');
  return (
    <section class="panel" aria-labelledby="manage">
      <h2 id="manage">Manage this invoice</h2>
      <ErrorMessage error={action.error} focus codes />
      <p>
        {/* Same origin: the API's own PDF, reached with the session's cookie. */}
        <a href={`${BASE}/v1/invoices/${encodeURIComponent(id)}/pdf?disposition=inline`} target="_blank" rel="noopener">
          Preview the PDF<span class="visually-hidden"> (opens in a new tab)</span>
        </a>
      </p>
      <div class="actions">
        {invoice.status === 'draft' ? (
          <button
            type="button"
            disabled={action.busy}
            onClick={() => void post('/v1/invoices/{id}/finalize', 'The invoice was finalised and sent.')}
          >
            Finalize and send
          </button>
        ) : null}
        {invoice.status === 'open' ? (
          <button
            type="button"
            disabled={action.busy}
            onClick={() =>
              action.runIfConfirmed(`Mark ${title} as paid? Record this only for a payment made outside the portal.`, async () => {
                await ok(v1.POST('/v1/invoices/{id}/mark-paid', { params: { path: { id } } }));
                changed();
                return `${title} was marked paid.`;
              })
            }
          >
            Mark as paid
          </button>
        ) : null}
        {invoice.status === 'draft' || invoice.status === 'open' ? (
          <button
            type="button"
            class="danger"
            disabled={action.busy}
            onClick={() =>
              action.runIfConfirmed(`Void ${title}? Nothing will be due on it.`, async () => {
                await ok(v1.POST('/v1/invoices/{id}/void', { params: { path: { id } } }));
                changed();
                return `${title} was voided.`;
              })
            }
          >
            Void
          </button>
        ) : null}
      </div>
      <Status>{action.done}</Status>
      {invoice.status === 'paid'
        ? receipts.map((payment) => <RefundForm key={payment.id} invoice={invoice} payment={payment} changed={changed} />)
        : null}
    </section>
  );
}

/**
 * Refund a payment, whole (the amount left empty) or in part (`POST /v1/refunds`, an Idempotency-Key per refund): more
 * than is left is the server's 400, shown beside the amount. The refunds made so far are listed.
 */
function RefundForm({ invoice, payment, changed }: { invoice: Invoice; payment: Payment; changed: () => void }) {
  const refunds = useLoad(() => ok(v1.GET('/v1/refunds', { params: { query: { paymentId: payment.id, limit: 100 } } })), [payment.id]);
  const action = useAction();
  const key = useOnceKey();
  const money = (cents: number) => formatMoney(cents, invoice.currency);
  const left = payment.amount - (payment.amountRefunded ?? 0);
  const submit = (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    const typed = String(data.get('amount') ?? '').trim();
    const reason = String(data.get('reason') ?? '').trim();
    void action.run(async () => {
      const amount = typed ? toCents(typed) : undefined;
      if (typed && !amount) throw fieldProblem('amount', 'an amount like 50.00');
      const body = { paymentId: payment.id, ...(amount ? { amount } : {}), ...(reason ? { reason } : {}) };
      const refund = await once(key, JSON.stringify(body), (k) =>
        ok(v1.POST('/v1/refunds', { params: { header: { 'idempotency-key': k } }, body })),
      );
      form.reset();
      refunds.reload();
      changed();
      return refund.status === 'succeeded'
        ? `${money(refund.amount)} was refunded.`
        : `The refund of ${money(refund.amount)} failed: ${refund.failureMessage ?? 'the processor refused it'}.`;
    });
  };
  const made = refunds.data?.data ?? [];
  return (
    <section class="refund" aria-labelledby={`refund-${payment.id}`}>
      <h3 id={`refund-${payment.id}`}>Refund the payment of {money(payment.amount)}</h3>
      <Facts>
        <Fact term="Paid on">{formatDay(payment.createdAt)}</Fact>
        <Fact term="Refunded so far">{money(payment.amountRefunded ?? 0)}</Fact>
        <Fact term="Left to refund">{money(left)}</Fact>
      </Facts>
      {made.length > 0 ? (
        <DataTable caption={`Refunds of the payment of ${money(payment.amount)}`} columns={['Date', 'Amount', 'Status', 'Reason']}>
          {made.map((refund) => (
            <tr key={refund.id}>
              <td data-label="Date">{formatDay(refund.createdAt)}</td>
              <td data-label="Amount">{money(refund.amount)}</td>
              <td data-label="Status">
                <StatusBadge
                  status={refund.status === 'succeeded' ? 'refunded' : refund.status === 'failed' ? 'refundFailed' : refund.status}
                />
              </td>
              <td data-label="Reason" class="break">
                {refund.reason ?? refund.failureMessage ?? ''}
              </td>
            </tr>
          ))}
        </DataTable>
      ) : null}
      {left > 0 ? (
        <>
          <ErrorMessage error={action.error} focus codes />
          <form class="inline-form" onSubmit={submit} noValidate>
            <Field label="Amount to refund" name="amount" hint={`Up to ${money(left)}; empty: all of it`} error={action.error}>
              {(props) => <input {...props} inputMode="decimal" autocomplete="off" />}
            </Field>
            <Field label="Reason" name="reason" hint="For the record (optional)" error={action.error}>
              {(props) => <input {...props} maxLength={500} autocomplete="off" />}
            </Field>
            <div class="actions">
              <button type="submit" disabled={action.busy}>
                {action.busy ? 'Refunding…' : 'Refund'}
              </button>
            </div>
          </form>
        </>
      ) : (
        <p>This payment is refunded in full.</p>
      )}
      <Status>{action.done}</Status>
    </section>
  );
}
