import { once, useOnceKey } from '../../../kit/once.js';
import { useState } from 'preact/hooks';
import { DataTable } from '../../../kit/list.js';
import { type Loaded, useLoad } from '../../../kit/ui.js';
import { ApiError, ok, v1 } from '../api.js';
import { partyName, partyWanted, useNames } from '../names.js';
import { BASE, Link } from '../router.js';
import { useSignedIn } from '../signed-in.js';
import { Done, ErrorMessage, LoadFailed, Loading, PageHeading, useAction } from '../ui.js';
import {
  BillingNav,
  type Card,
  CardFields,
  Fact,
  Facts,
  type Invoice,
  type Payment,
  StatusBadge,
  cardName,
  cardOf,
  expired,
  expiry,
  formatDay,
  formatMoney,
  invoiceTitle,
  useIsClient,
} from './billing-parts.js';
import { useBillingAdmin } from '../staff/billing-desk.js';
import { InvoiceDesk } from '../staff/billing-invoices.js';

/** One invoice: what it bills, its PDF, paying it (when open), and its payments: the receipt, declined attempts. */
export function InvoicePage({ id }: { id: string }) {
  const invoice = useLoad(() => ok(v1.GET('/v1/invoices/{id}', { params: { path: { id } } })), [id]);
  const payments = useLoad(() => ok(v1.GET('/v1/payments', { params: { query: { invoiceId: id, limit: 100 } } })), [id]);
  const [paidNow, setPaidNow] = useState(false);
  const client = useIsClient();
  const admin = useBillingAdmin();
  const path = `/billing/invoices/${id}`;

  if (!invoice.data) {
    const failed = invoice.error && !invoice.loading;
    const missing = failed && invoice.error instanceof ApiError && invoice.error.status === 404;
    return (
      <>
        <PageHeading title={missing ? 'Invoice not found' : failed ? 'Something went wrong' : 'Invoice'} />
        <BillingNav path={path} />
        {missing ? (
          <p>
            There is no such invoice, or it is not yours. <Link href="/billing">See your invoices</Link>.
          </p>
        ) : failed ? (
          <LoadFailed error={invoice.error} retry={invoice.reload} />
        ) : (
          <Loading>Loading the invoice…</Loading>
        )}
      </>
    );
  }
  const current = invoice.data;
  const settled = (paid: boolean) => {
    setPaidNow(paid);
    invoice.reload();
    payments.reload();
  };
  return (
    <>
      <PageHeading title={invoiceTitle(current)} />
      <BillingNav path={path} />
      {paidNow && current.status === 'paid' ? (
        <Done>
          <p>Paid, thank you: {formatMoney(current.total, current.currency)}. Your receipt is below.</p>
        </Done>
      ) : null}
      <Summary invoice={current} />
      {admin ? <InvoiceDesk invoice={current} payments={payments} changed={() => settled(false)} /> : null}
      <Items invoice={current} />
      {current.status !== 'open' ? null : client ? <PayPanel invoice={current} settled={settled} /> : <p>Open: its client pays it here.</p>}
      <Payments invoice={current} payments={payments} />
    </>
  );
}

function Summary({ invoice }: { invoice: Invoice }) {
  const money = (cents: number) => formatMoney(cents, invoice.currency);
  const { person } = useSignedIn();
  // Staff read whom it bills (a client knows it is its own, or its company's).
  const name = useNames(person, person.type === 'client' ? [] : partyWanted(invoice));
  return (
    <section aria-labelledby="summary" class="panel">
      <h2 id="summary">Summary</h2>
      <Facts>
        {person.type === 'client' ? null : <Fact term="Billed to">{partyName(invoice, name)}</Fact>}
        <Fact term="Status">
          <StatusBadge status={invoice.status} />
        </Fact>
        <Fact term="Total" strong>
          {money(invoice.total)}
        </Fact>
        {invoice.status === 'void' ? null : <Fact term={invoice.status === 'open' ? 'Due' : 'Was due'}>{formatDay(invoice.dueDate)}</Fact>}
        <Fact term="Issued">{formatDay(invoice.sentDate ?? invoice.createdAt)}</Fact>
        {invoice.paymentSuccessDate ? <Fact term="Paid">{formatDay(invoice.paymentSuccessDate)}</Fact> : null}
        {invoice.amountRefunded ? <Fact term="Refunded">{money(invoice.amountRefunded)}</Fact> : null}
      </Facts>
      {invoice.status === 'void' ? <p>This invoice was voided: nothing is due.</p> : null}
      <p>
        {/* The PDF is served by the API itself, reached with the session's cookie like every other call. */}
        <a class="button secondary" href={`${BASE}/v1/invoices/${encodeURIComponent(invoice.id)}/pdf`} download>
          Download the PDF
        </a>
      </p>
    </section>
  );
}

function Items({ invoice }: { invoice: Invoice }) {
  const money = (cents: number) => formatMoney(cents, invoice.currency);
  return (
    <section aria-labelledby="items">
      <h2 id="items">Items</h2>
      <DataTable caption={`Items of ${invoiceTitle(invoice).toLowerCase()}`} columns={['Description', 'Quantity', 'Unit price', 'Amount']}>
        {invoice.lineItems.map((line, index) => (
          <tr key={index}>
            <td data-label="Description">{line.description || 'Item'}</td>
            <td data-label="Quantity">{line.quantity}</td>
            <td data-label="Unit price">{money(line.amount)}</td>
            <td data-label="Amount">{money(line.total)}</td>
          </tr>
        ))}
      </DataTable>
      <Facts>
        <Fact term="Subtotal">{money(invoice.subtotal)}</Fact>
        <Fact term={`Tax (${invoice.taxPercentage}%)`}>{money(invoice.taxAmount)}</Fact>
        <Fact term="Total" strong>
          {money(invoice.total)}
        </Fact>
      </Facts>
      {invoice.memo ? <p class="memo">{invoice.memo}</p> : null}
    </section>
  );
}

/** Whether a card is one this invoice may be paid with: a card of the party it bills (the client, else its company). */
const ofParty = (card: Card, invoice: Invoice) =>
  card.companyId === invoice.companyId && (card.clientId ?? null) === (invoice.clientId ?? null);

/** The party a new card for this invoice is put on file for (as the API's body names it). */
const partyOf = (invoice: Invoice) =>
  invoice.clientId ? { clientId: invoice.clientId, companyId: invoice.companyId } : { companyId: invoice.companyId };

const NEW_CARD = 'new';

/**
 * Paying an open invoice: with a saved card of the party it bills, or a new one (put on file, kept only when asked
 * and the payment went through). The button is disabled while paying, and each payment has its Idempotency-Key, so
 * that a click or a network retry pays once; a declined card says why beside the button.
 */
function PayPanel({ invoice, settled }: { invoice: Invoice; settled: (paid: boolean) => void }) {
  const cards = useLoad(() => ok(v1.GET('/v1/payment-methods', { params: { query: { limit: 100 } } })), []);
  const usable = (cards.data?.data ?? []).filter((card) => ofParty(card, invoice) && !expired(card));
  const [choice, setChoice] = useState('');
  // Paid: the button stays disabled until the invoice, read again, shows it paid (this panel then goes).
  const [paid, setPaid] = useState(false);
  const selected = choice || usable[0]?.id || NEW_CARD;
  const action = useAction();
  const payKey = useOnceKey();
  const cardKey = useOnceKey();
  const amount = formatMoney(invoice.total, invoice.currency);

  const submit = (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const keep = new FormData(form).get('keep') === 'yes';
    void action.run(async () => {
      let added: Card | undefined;
      if (selected === NEW_CARD) {
        const body = { ...partyOf(invoice), card: cardOf(form) };
        added = await once(cardKey, JSON.stringify(body), (key) =>
          ok(v1.POST('/v1/payment-methods', { params: { header: { 'idempotency-key': key } }, body })),
        );
      }
      const paymentMethodId = added?.id ?? selected;
      let charged = false;
      try {
        await once(payKey, `${invoice.id} ${paymentMethodId}`, (key) =>
          ok(
            v1.POST('/v1/invoices/{id}/pay', {
              params: { path: { id: invoice.id }, header: { 'idempotency-key': key } },
              body: { paymentMethodId },
            }),
          ),
        );
        charged = true;
        setPaid(true);
      } finally {
        // A new card stays on file only when asked, and when it paid; its payments keep its brand and last digits.
        if (added && !(charged && keep))
          await v1.DELETE('/v1/payment-methods/{id}', { params: { path: { id: added.id } } }).catch(() => {});
        // The invoice and its payments read again: paid (the receipt), or a declined attempt more.
        settled(charged);
        if (!charged) cards.reload();
      }
    });
  };

  return (
    <section aria-labelledby="pay" class="panel">
      <h2 id="pay">Pay this invoice</h2>
      {cards.error ? <ErrorMessage error={cards.error} /> : null}
      <form class="stack" onSubmit={submit}>
        {usable.length > 0 ? (
          <fieldset>
            <legend>Pay with</legend>
            {usable.map((card) => (
              <label key={card.id} class="choice">
                <input type="radio" name="card" value={card.id} checked={selected === card.id} onChange={() => setChoice(card.id)} />
                {cardName(card)}, expires {expiry(card)}
              </label>
            ))}
            <label class="choice">
              <input type="radio" name="card" value={NEW_CARD} checked={selected === NEW_CARD} onChange={() => setChoice(NEW_CARD)} />A new
              card
            </label>
          </fieldset>
        ) : cards.loading && !cards.data ? (
          <Loading>Loading your saved cards…</Loading>
        ) : null}
        {selected === NEW_CARD && !(cards.loading && !cards.data) ? (
          <>
            <CardFields error={action.error} />
            <label class="choice">
              <input type="checkbox" name="keep" value="yes" />
              Save this card for later payments
            </label>
          </>
        ) : null}
        <ErrorMessage focus error={action.error}>
          <Decline error={action.error} />
        </ErrorMessage>
        <div class="actions">
          <button type="submit" disabled={action.busy || paid || (cards.loading && !cards.data)}>
            {action.busy ? 'Paying…' : `Pay ${amount}`}
          </button>
        </div>
      </form>
    </section>
  );
}

/** What a declined payment means for the person paying (the API's message is above it): nothing charged, and the processor's code. */
function Decline({ error }: { error: unknown }) {
  if (!(error instanceof ApiError && error.code === 'payment_failed')) return null;
  const declineCode = (error.data as { declineCode?: string } | null)?.declineCode;
  return (
    <>
      <p>Nothing was charged, and the invoice is still open. Try another card.</p>
      {declineCode ? <p class="hint">Decline code: {declineCode}</p> : null}
    </>
  );
}

/** The invoice's payments: the receipt of the one that paid it (and what was refunded of it), then the declined attempts. */
function Payments({ invoice, payments }: { invoice: Invoice; payments: Loaded<{ data: Payment[] }> }) {
  const all = payments.data?.data ?? [];
  const receipts = all.filter((payment) => payment.status === 'succeeded');
  const declined = all.filter((payment) => payment.status === 'failed');
  const money = (cents: number) => formatMoney(cents, invoice.currency);
  if (payments.error) return <ErrorMessage error={payments.error} />;
  if (all.length === 0) return null;
  return (
    <>
      {receipts.map((payment) => (
        <section key={payment.id} aria-labelledby={`receipt-${payment.id}`} class="panel receipt">
          <h2 id={`receipt-${payment.id}`}>Receipt</h2>
          <Facts>
            <Fact term="Amount paid" strong>
              {money(payment.amount)}
            </Fact>
            <Fact term="Paid on">{formatDay(payment.createdAt)}</Fact>
            <Fact term="Paid with">{payment.paymentMethod === 'creditCard' ? cardName(payment) : 'Recorded by us (paid another way)'}</Fact>
            {payment.amountRefunded ? <Fact term="Refunded">{money(payment.amountRefunded)}</Fact> : null}
            <Fact term="Reference">
              <span class="mono">{payment.id}</span>
            </Fact>
          </Facts>
        </section>
      ))}
      {declined.length > 0 ? (
        <section aria-labelledby="declined">
          <h2 id="declined">Declined attempts</h2>
          <ul class="attempts">
            {declined.map((payment) => (
              <li key={payment.id}>
                {formatDay(payment.createdAt)}: {cardName(payment)}, {payment.message ?? 'declined'}
                {payment.declineCode ? <span class="muted"> ({payment.declineCode})</span> : null}
              </li>
            ))}
          </ul>
        </section>
      ) : null}
    </>
  );
}
