// The billing desk of an admin signed in to the portal (issue 45 point 3): what the API lets an internal user with the
// admin role do in billing (staff with the `staff` role get 403 on every change, and clients 404 on the catalog),
// offered only to them. Here: who to bill (a client or a company, found by a server-side search), the catalog's
// prices, subscriptions started and cancelled, and a sandbox's test clock. Invoices: billing-invoices.tsx.
import { FindInput } from '../../../kit/list.js';
import { useState } from 'preact/hooks';
import type { Item } from '../../../kit/api.js';
import { once, useOnceKey } from '../../../kit/once.js';
import { type Action, useLoad } from '../../../kit/ui.js';
import { ApiError, ok, v1 } from '../api.js';
import { useSignedIn } from '../signed-in.js';
import { ErrorMessage, Field, LoadFailed, Status, useAction } from '../ui.js';
import { formatDay, formatMoney } from '../pages/billing-parts.js';

export type Price = Item<'/v1/prices'>;
type Product = Item<'/v1/products'>;
type SubscriptionTemplate = Item<'/v1/subscription-templates'>;

/** Whether the person may change billing: an internal user with the admin role (the API's `staff: false` routes). */
export function useBillingAdmin(): boolean {
  return useSignedIn().staff?.role === 'admin';
}

/** Every non-empty search as a query parameter (an empty `q` is not sent). */
const given = (value: string) => value.trim() || undefined;

/** "every month", "every 3 months" */
function everyInterval(interval: string | undefined, count = 1): string {
  const words: Record<string, [string, string]> = {
    day: ['day', 'days'],
    week: ['week', 'weeks'],
    month: ['month', 'months'],
    quarterly: ['quarter', 'quarters'],
    yearly: ['year', 'years'],
  };
  const [one, many] = words[interval ?? ''] ?? [interval ?? '', interval ?? ''];
  return count === 1 ? `every ${one}` : `every ${count} ${many}`;
}

/**
 * The catalog's newest prices (a page of 100) and their products' names: what an invoice's line or a subscription is
 * made from. A price reads "Consulting: $150.00" (and how often, when recurring).
 */
export function useCatalog() {
  return useLoad(async () => {
    const [prices, products] = await Promise.all([
      ok(v1.GET('/v1/prices', { params: { query: { limit: 100 } } })),
      ok(v1.GET('/v1/products', { params: { query: { limit: 100 } } })),
    ]);
    const names = new Map(products.data.map((product: Product) => [product.id, product.name]));
    const label = (price: Price) =>
      `${names.get(price.productId) ?? 'Product'}: ${formatMoney(price.amount, price.currency)}${
        price.type === 'recurring' ? ` ${everyInterval(price.interval, price.intervalCount)}` : ''
      }`;
    return { prices: prices.data, label, productName: (price: Price) => names.get(price.productId) ?? '' };
  }, []);
}

/** Who is billed, as the select's value says it: `client:<id>` or `company:<id>`. */
export function partyBody(value: string): { clientId: string } | { companyId: string } | Record<string, never> {
  const [kind, id] = value.split(':');
  if (!id) return {};
  return kind === 'client' ? { clientId: id } : { companyId: id };
}

/**
 * Bill to: a word of a client's or a company's name (or a client's e-mail), **Find** (the server searches: `q`), then
 * one of what it found. The select is named `party`; the server's word about `clientId` or `companyId` shows beside it.
 */
export function PartyPicker({ error }: { error: unknown }) {
  const [q, setQ] = useState('');
  const [found, setFound] = useState<{ clients: Item<'/v1/clients'>[]; companies: Item<'/v1/companies'>[] } | null>(null);
  const [failed, setFailed] = useState<unknown>(null);
  const find = async () => {
    setFailed(null);
    try {
      const [clients, companies] = await Promise.all([
        ok(v1.GET('/v1/clients', { params: { query: { q: given(q), limit: 10 } } })),
        ok(v1.GET('/v1/companies', { params: { query: { q: given(q), limit: 10 } } })),
      ]);
      setFound({ clients: clients.data, companies: companies.data.filter((company) => !company.isPlaceholder) });
    } catch (e) {
      setFailed(e);
    }
  };
  // The server names the client or the company; either is the party's.
  const partyError =
    error instanceof ApiError && !error.fields.clientId && error.fields.companyId
      ? new ApiError(error.status, error.code, error.message, [{ path: 'body.clientId', message: error.fields.companyId }])
      : error;
  const none = found && found.clients.length === 0 && found.companies.length === 0;
  return (
    <>
      <Field label="Find a client or company" hint="A word of the name or e-mail, then Find">
        {(props) => <FindInput props={props} value={q} onValue={setQ} onFind={() => void find()} />}
      </Field>
      {failed ? <p role="alert">The clients could not be searched: try Find again.</p> : null}
      {none ? <p role="status">Nothing matches: try another word.</p> : null}
      <Field label="Bill to" name="clientId" error={partyError}>
        {(props) => (
          <select {...props} name="party" required>
            <option value="">{found ? 'Choose whom to bill' : 'Find one first'}</option>
            {found && found.clients.length > 0 ? (
              <optgroup label="Clients">
                {found.clients.map((client) => (
                  <option key={client.id} value={`client:${client.id}`}>
                    {`${client.givenName} ${client.familyName}`.trim()} ({client.email})
                  </option>
                ))}
              </optgroup>
            ) : null}
            {found && found.companies.length > 0 ? (
              <optgroup label="Companies">
                {found.companies.map((company) => (
                  <option key={company.id} value={`company:${company.id}`}>
                    {company.name}
                  </option>
                ))}
              </optgroup>
            ) : null}
          </select>
        )}
      </Field>
    </>
  );
}

/**
 * Start a subscription: whom it bills, from a recurring price (its amount and interval; a quantity) or a subscription
 * template (its lines, tax, memo and interval), the days an invoice leaves to pay, and whether the client's card is
 * charged or each period's invoice is sent to pay. `POST /v1/subscriptions` with an Idempotency-Key.
 */
export function NewSubscription({ started }: { started: () => void }) {
  const catalog = useCatalog();
  const templates = useLoad(() => ok(v1.GET('/v1/subscription-templates', { params: { query: { limit: 100 } } })), []);
  const recurring = (catalog.data?.prices ?? []).filter((price) => price.type === 'recurring');
  const action = useAction();
  const key = useOnceKey();
  /** A price's line says what it is: its product's name. */
  const productOf = (priceId: string) => {
    const price = recurring.find((p) => p.id === priceId);
    return price ? (catalog.data?.productName(price) ?? '') : '';
  };
  const submit = (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    const field = (name: string) => String(data.get(name) ?? '').trim();
    const from = field('from');
    const [kind, id] = from.split(':');
    const body = {
      ...partyBody(field('party')),
      ...(kind === 'template' && id
        ? { templateId: id }
        : { lineItems: [{ ...(id ? { priceId: id, description: productOf(id) } : {}), quantity: Number(field('quantity') || '1') }] }),
      daysUntilDue: Number(field('daysUntilDue')),
      collectionMethod: field('collectionMethod') as 'sendInvoice' | 'chargeAutomatically',
    };
    void action.run(async () => {
      const subscription = await once(key, JSON.stringify(body), (k) =>
        ok(v1.POST('/v1/subscriptions', { params: { header: { 'idempotency-key': k } }, body })),
      );
      form.reset();
      started();
      const what =
        subscription.lineItems
          .map((line) => line.description)
          .filter(Boolean)
          .join(', ') || 'the subscription';
      return subscription.status === 'notStarted'
        ? `${what} starts ${formatDay(subscription.nextBillingDate)}.`
        : `${what} was started: its first invoice is made now.`;
    });
  };
  return (
    <section class="panel" aria-labelledby="new-subscription">
      <h2 id="new-subscription">Start a subscription</h2>
      <ErrorMessage error={action.error} focus codes />
      {catalog.error || templates.error ? (
        <LoadFailed
          error={catalog.error ?? templates.error}
          retry={() => {
            if (catalog.error) catalog.reload();
            if (templates.error) templates.reload();
          }}
          codes
        />
      ) : null}
      <form class="inline-form" onSubmit={submit}>
        <PartyPicker error={action.error} />
        <Field label="Bill" name="lineItems.0.priceId" error={action.error}>
          {(props) => (
            <select {...props} name="from" required>
              <option value="">Choose a price or template</option>
              {recurring.length > 0 ? (
                <optgroup label="Recurring prices">
                  {recurring.map((price) => (
                    <option key={price.id} value={`price:${price.id}`}>
                      {catalog.data?.label(price)}
                    </option>
                  ))}
                </optgroup>
              ) : null}
              {(templates.data?.data.length ?? 0) > 0 ? (
                <optgroup label="Subscription templates">
                  {(templates.data?.data ?? []).map((template: SubscriptionTemplate) => (
                    <option key={template.id} value={`template:${template.id}`}>
                      {template.name} ({everyInterval(template.interval, template.intervalCount)})
                    </option>
                  ))}
                </optgroup>
              ) : null}
            </select>
          )}
        </Field>
        <Field label="Quantity" name="lineItems.0.quantity" hint="Of the price; a template bills its own lines" error={action.error}>
          {(props) => <input {...props} name="quantity" type="number" inputMode="decimal" min="0.0001" step="any" defaultValue="1" />}
        </Field>
        <Field label="Days to pay each invoice" name="daysUntilDue" hint="0 to 30" error={action.error}>
          {(props) => <input {...props} type="number" inputMode="numeric" min="0" max="30" step="1" required defaultValue="14" />}
        </Field>
        <Field label="Collection" name="collectionMethod" error={action.error}>
          {(props) => (
            <select {...props}>
              <option value="sendInvoice">Send each invoice to pay</option>
              <option value="chargeAutomatically">Charge the card on file</option>
            </select>
          )}
        </Field>
        <div class="actions">
          <button type="submit" disabled={action.busy}>
            {action.busy ? 'Starting…' : 'Start the subscription'}
          </button>
        </div>
      </form>
      <Status>{action.done}</Status>
    </section>
  );
}

/** Cancel a subscription (after a confirmation): `POST /v1/subscriptions/{id}/cancel`; no invoice follows. */
export function CancelSubscription({ id, what, action, cancelled }: { id: string; what: string; action: Action; cancelled: () => void }) {
  return (
    <button
      type="button"
      class="danger"
      disabled={action.busy}
      aria-label={`Cancel the subscription to ${what}`}
      onClick={() =>
        action.runIfConfirmed(`Cancel the subscription to ${what}? No further invoice is made.`, async () => {
          await ok(v1.POST('/v1/subscriptions/{id}/cancel', { params: { path: { id } } }));
          cancelled();
          return `The subscription to ${what} was cancelled.`;
        })
      }
    >
      Cancel
    </button>
  );
}

/**
 * A sandbox workspace's test clock (`GET /v1/test-clock`; a live workspace has none: 404, and nothing is shown): its
 * time, and for an admin **Advance** by days and hours (`POST /v1/test-clock/advance`): what falls due meanwhile
 * (subscriptions' periods, automatic charges and their retries) runs before the answer.
 */
export function TestClockPanel({ advanced }: { advanced: () => void }) {
  const clock = useLoad(async () => {
    try {
      return await ok(v1.GET('/v1/test-clock'));
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) return null;
      throw error;
    }
  }, []);
  const admin = useBillingAdmin();
  const action = useAction();
  if (clock.data === null) return null;
  if (!clock.data) return clock.error ? <LoadFailed error={clock.error} retry={clock.reload} codes /> : null;
  const submit = (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    const days = Number(data.get('days') || 0);
    const hours = Number(data.get('hours') || 0);
    const bySeconds = Math.round(days * 86_400 + hours * 3_600);
    void action.run(async () => {
      const moved = await ok(v1.POST('/v1/test-clock/advance', { body: { bySeconds } }));
      clock.reload();
      advanced();
      return `The test clock now reads ${timeOf(moved.time)}.`;
    });
  };
  return (
    <section class="panel" aria-labelledby="test-clock">
      <h2 id="test-clock">Test clock</h2>
      <p>
        This is a sandbox workspace: its time is <strong>{timeOf(clock.data.time)}</strong>
        {clock.data.aheadBySeconds > 0 ? `, ${aheadBy(clock.data.aheadBySeconds)} ahead of the real time` : ''}.
      </p>
      {admin ? (
        <>
          <ErrorMessage error={action.error} focus codes />
          <form class="inline-form" onSubmit={submit}>
            <Field label="Days" name="bySeconds" error={action.error}>
              {(props) => <input {...props} name="days" type="number" inputMode="numeric" min="0" max="3650" step="1" defaultValue="1" />}
            </Field>
            <Field label="Hours">
              {(props) => <input {...props} name="hours" type="number" inputMode="numeric" min="0" max="23" step="1" defaultValue="0" />}
            </Field>
            <div class="actions">
              <button type="submit" disabled={action.busy}>
                {action.busy ? 'Advancing…' : 'Advance the clock'}
              </button>
            </div>
          </form>
          <Status>{action.done}</Status>
        </>
      ) : null}
    </section>
  );
}

const timeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' });
const timeOf = (value: string) => `${timeFormat.format(new Date(value))} UTC`;

/** "3 days", "5 hours", "2 days 4 hours" */
function aheadBy(seconds: number): string {
  const days = Math.floor(seconds / 86_400);
  const hours = Math.floor((seconds % 86_400) / 3_600);
  const part = (n: number, word: string) => (n ? `${n} ${word}${n === 1 ? '' : 's'}` : '');
  return [part(days, 'day'), part(hours, 'hour')].filter(Boolean).join(' ') || 'less than an hour';
}
