import { match } from '../../../kit/router.js';
import { ok, v1 } from '../api.js';
import { Link } from '../router.js';
import { partyName, partyWanted, useNames } from '../names.js';
import { type SignedIn, useSignedIn } from '../signed-in.js';
import type { Waiting } from '../sections.js';
import { ErrorMessage, Field, PageHeading, Status, useAction } from '../ui.js';
import { useState } from 'preact/hooks';
import { DataTable, FilterForm, ListState, Pager, useListQuery, usePaged } from '../../../kit/list.js';
import { CardsPage } from './billing-cards.js';
import { InvoicePage } from './billing-invoice.js';
import {
  BillingNav,
  type Invoice,
  StatusBadge,
  type Subscription,
  countOpenInvoices,
  formatDay,
  formatMoney,
  invoiceTitle,
  useIsClient,
} from './billing-parts.js';
import { PaymentsPage } from './billing-payments.js';
import { NotFoundPage } from './not-found.js';
import { CancelSubscription, NewSubscription, TestClockPanel, useBillingAdmin } from '../staff/billing-desk.js';
import { NewInvoicePage } from '../staff/billing-invoices.js';

/** What waits in billing for a client: the open invoices ("2 open invoices"); nothing for staff (they do not pay them). */
export async function billingWaiting(signedIn: SignedIn): Promise<Waiting> {
  const count = signedIn.person.type === 'client' ? await countOpenInvoices() : 0;
  return { section: '/billing', count, says: `${count} open invoice${count === 1 ? '' : 's'}` };
}

/** The portal's billing (issue 44, point 4): every page under /billing, by the rest of its path. */
export function BillingPage({ path }: { path: string }) {
  if (path === '/billing') return <OverviewPage path={path} />;
  if (path === '/billing/payments') return <PaymentsPage path={path} />;
  if (path === '/billing/cards') return <CardsPage path={path} />;
  if (path === '/billing/new-invoice') return <NewInvoicePage />;
  const invoice = match('/billing/invoices/:id', path);
  if (invoice) return <InvoicePage id={invoice.id} />;
  return <NotFoundPage />;
}

function OverviewPage({ path }: { path: string }) {
  const client = useIsClient();
  const admin = useBillingAdmin();
  // A subscription started (its first invoice made) or the test clock moved: both lists read again.
  const [round, setRound] = useState(0);
  const changed = () => setRound((n) => n + 1);
  return (
    <>
      <PageHeading title="Billing" />
      <BillingNav path={path} />
      {client ? null : admin ? (
        <p>
          The invoices of the clients you serve, drafts included. <Link href="/billing/new-invoice">New invoice</Link>
        </p>
      ) : (
        <p>The invoices of the clients you serve, drafts included. Clients pay them here; you read them.</p>
      )}
      <Invoices statuses={client ? STATUSES : [...STATUSES, ['draft', 'Draft']]} round={round} />
      <Subscriptions round={round} changed={changed} />
      {admin ? <NewSubscription started={changed} /> : null}
      {client ? null : <TestClockPanel advanced={changed} />}
    </>
  );
}

/** The status filter's choices (a client sees no drafts). */
const STATUSES: [string, string][] = [
  ['', 'All'],
  ['open', 'Open'],
  ['paid', 'Paid'],
  ['void', 'Void'],
];

/** Whether an open invoice is past its due date. */
const overdue = (invoice: Invoice) => invoice.status === 'open' && Date.parse(invoice.dueDate) < Date.now();

function Invoices({ statuses, round }: { statuses: [string, string][]; round: number }) {
  const { person } = useSignedIn();
  const staff = person.type !== 'client';
  const query = useListQuery(
    { status: '' },
    (filters, nextToken) =>
      ok(
        v1.GET('/v1/invoices', {
          params: { query: { limit: 25, nextToken, ...(filters.status ? { status: filters.status as Invoice['status'] } : {}) } },
        }),
      ),
    [round],
  );
  const { filters, list } = query;
  const rows = list.data?.data ?? [];
  // Staff see whom each bills; a client, its own.
  const name = useNames(person, staff ? rows.flatMap(partyWanted) : []);
  const shown = statuses.find(([value]) => value === filters.status)?.[1].toLowerCase() ?? '';
  return (
    <section aria-labelledby="invoices">
      <h2 id="invoices">Invoices</h2>
      <FilterForm query={query} label="Invoices" submitLabel="Show" clearLabel={null}>
        <Field label="Status">
          {(props) => (
            <select {...props} name="status">
              {statuses.map(([value, label]) => (
                <option key={value} value={value} selected={filters.status === value}>
                  {label}
                </option>
              ))}
            </select>
          )}
        </Field>
      </FilterForm>
      <ListState list={list} empty={filters.status ? `No ${shown} invoices.` : 'No invoices yet.'} what="invoices" />
      {rows.length > 0 ? (
        <DataTable
          caption="Invoices, newest first"
          columns={staff ? ['Invoice', 'Billed to', 'Total', 'Status', 'Due'] : ['Invoice', 'Total', 'Status', 'Due']}
        >
          {rows.map((invoice) => (
            <tr key={invoice.id}>
              <td data-label="Invoice">
                <Link href={`/billing/invoices/${invoice.id}`}>{invoiceTitle(invoice)}</Link>
              </td>
              {staff ? (
                <td data-label="Billed to" class="break">
                  {partyName(invoice, name)}
                </td>
              ) : null}
              <td data-label="Total">{formatMoney(invoice.total, invoice.currency)}</td>
              <td data-label="Status">
                <StatusBadge status={invoice.status} />
                {invoice.amountRefunded ? (
                  <span class="muted"> (refunded {formatMoney(invoice.amountRefunded, invoice.currency)})</span>
                ) : null}
              </td>
              <td data-label="Due">
                {invoice.status === 'void' || invoice.status === 'draft' ? '—' : formatDay(invoice.dueDate)}
                {overdue(invoice) ? <strong class="overdue"> overdue</strong> : null}
              </td>
            </tr>
          ))}
        </DataTable>
      ) : null}
      <Pager list={list} label="Invoices" />
    </section>
  );
}

/** What a subscription bills each period: its lines, plus tax at its rate (half up to a cent, as the API computes it). */
function periodTotal(subscription: Subscription): number {
  const subtotal = subscription.lineItems.reduce((sum, line) => sum + line.total, 0);
  const thousandths = BigInt(Math.round(subscription.taxPercentage * 1000));
  const tax = (BigInt(subtotal) * thousandths + 50_000n) / 100_000n;
  return subtotal + Number(tax);
}

const INTERVALS: Record<Subscription['interval'], [string, string]> = {
  day: ['day', 'days'],
  week: ['week', 'weeks'],
  month: ['month', 'months'],
  quarterly: ['quarter', 'quarters'],
  yearly: ['year', 'years'],
};

/** "every month", "every 3 months" */
function every(subscription: Subscription): string {
  const [one, many] = INTERVALS[subscription.interval] ?? [subscription.interval, subscription.interval];
  return subscription.intervalCount === 1 ? `every ${one}` : `every ${subscription.intervalCount} ${many}`;
}

/** What a subscription is for: its lines' descriptions. */
const subscriptionName = (subscription: Subscription) =>
  subscription.lineItems
    .map((line) => line.description)
    .filter(Boolean)
    .join(', ') || 'Subscription';

/** Whether the subscription bills again (its next period is due: it has not been cancelled or ended). */
const billsAgain = (subscription: Subscription) =>
  ['active', 'notStarted', 'pastDue'].includes(subscription.status) && subscription.nextBillingDate;

function Subscriptions({ round, changed }: { round: number; changed: () => void }) {
  const { person } = useSignedIn();
  const staff = person.type !== 'client';
  const admin = useBillingAdmin();
  const cancel = useAction();
  const list = usePaged((nextToken) => ok(v1.GET('/v1/subscriptions', { params: { query: { limit: 25, nextToken } } })), [round]);
  const rows = list.data?.data ?? [];
  const name = useNames(person, staff ? rows.flatMap(partyWanted) : []);
  // Whose card an automatic charge takes: the reader's own, or (read by staff) the client's.
  const card = staff ? 'the client’s card' : 'your card';
  return (
    <section aria-labelledby="subscriptions">
      <h2 id="subscriptions">Subscriptions</h2>
      <ListState list={list} empty="No subscriptions." what="subscriptions" />
      <ErrorMessage error={cancel.error} focus codes />
      <Status>{cancel.done}</Status>
      {rows.length > 0 ? (
        <DataTable
          caption="Subscriptions, newest first"
          columns={staff ? ['For', 'Billed to', 'Amount', 'Status', 'Next charge'] : ['For', 'Amount', 'Status', 'Next charge']}
          actions={admin}
        >
          {rows.map((subscription) => (
            <tr key={subscription.id}>
              <td data-label="For">{subscriptionName(subscription)}</td>
              {staff ? (
                <td data-label="Billed to" class="break">
                  {partyName(subscription, name)}
                </td>
              ) : null}
              <td data-label="Amount">
                {formatMoney(periodTotal(subscription), subscription.currency)} {every(subscription)}
                {subscription.taxPercentage ? <span class="muted"> (with {subscription.taxPercentage}% tax)</span> : null}
              </td>
              <td data-label="Status">
                <StatusBadge status={subscription.status} />
              </td>
              <td data-label="Next charge">
                {billsAgain(subscription) ? (
                  <>
                    {formatDay(subscription.nextBillingDate)}
                    <span class="muted">
                      {subscription.collectionMethod === 'chargeAutomatically' ? `, charged to ${card}` : ', as an invoice to pay'}
                    </span>
                  </>
                ) : (
                  'None'
                )}
              </td>
              {admin ? (
                <td>
                  {subscription.status === 'active' || subscription.status === 'notStarted' ? (
                    <CancelSubscription id={subscription.id} what={subscriptionName(subscription)} action={cancel} cancelled={changed} />
                  ) : null}
                </td>
              ) : null}
            </tr>
          ))}
        </DataTable>
      ) : null}
      <Pager list={list} label="Subscriptions" />
    </section>
  );
}
