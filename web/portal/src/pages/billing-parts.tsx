// What the billing pages share: the API's shapes, how amounts, dates and cards read, the section's own navigation,
// the card's fields, and the Idempotency-Key of a payment.
import type { ComponentChildren } from 'preact';
import type { Item } from '../../../kit/api.js';
import { ok, v1 } from '../api.js';
import { useSignedIn } from '../signed-in.js';
import { Link } from '../router.js';
import { Field } from '../ui.js';

export { formatMoney } from '../../../kit/format.js';

export type Invoice = Item<'/v1/invoices'>;
export type Payment = Item<'/v1/payments'>;
export type Card = Item<'/v1/payment-methods'>;
export type Subscription = Item<'/v1/subscriptions'>;

const day = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });

/** A date of the API (RFC 3339) as a day ("15 Jan 2026"); '—' when there is none. */
export function formatDay(value: string | undefined): string {
  if (!value) return '—';
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : day.format(date);
}

/** "Invoice 0007"; a draft (which only staff see) has no number yet. */
export const invoiceTitle = (invoice: Pick<Invoice, 'number'>) => (invoice.number ? `Invoice ${invoice.number}` : 'Draft invoice');

/**
 * Whether a client is signed in. Billing is the clients' (they pay, they keep cards); staff signed in read the
 * invoices, subscriptions and payments of the companies they see, and are offered neither paying nor cards: the
 * API would let them charge a client's card, which is not for a client's portal to offer.
 */
export const useIsClient = () => useSignedIn().person.type === 'client';

const BRANDS: Record<string, string> = { visa: 'Visa', mastercard: 'Mastercard', amex: 'American Express' };

/** "Visa ending 4242": a card as its holder knows it (the API keeps no more of it). */
export const cardName = (card: { brand?: string; last4Digits?: string }) =>
  `${BRANDS[card.brand ?? ''] ?? (card.brand || 'Card')} ending ${card.last4Digits ?? '····'}`;

/** "12/2030" */
export const expiry = (card: Card) => `${String(card.expMonth).padStart(2, '0')}/${card.expYear}`;

/** Whether a card is past its expiry month now (the processor would decline it: expired_card). */
export function expired(card: Card): boolean {
  const now = new Date();
  return card.expYear < now.getFullYear() || (card.expYear === now.getFullYear() && card.expMonth < now.getMonth() + 1);
}

/** A status in words, on the kit's badge colours (the word carries the meaning; the colour repeats it). */
const STATUS_WORDS: Record<string, string> = {
  draft: 'Draft',
  open: 'Open',
  paid: 'Paid',
  void: 'Void',
  succeeded: 'Paid',
  failed: 'Declined',
  active: 'Active',
  notStarted: 'Not started',
  pastDue: 'Past due',
  unpaid: 'Unpaid',
  cancelled: 'Cancelled',
  ended: 'Ended',
  refunded: 'Refunded',
  refundFailed: 'Failed',
  pending: 'Pending',
};

export function StatusBadge({ status }: { status: string }) {
  return <span class={`badge badge-${status}`}>{STATUS_WORDS[status] ?? status}</span>;
}

/** The open invoices the person sees, counted a page of 1,000 at a time (the API has no count). */
export async function countOpenInvoices(): Promise<number> {
  let count = 0;
  let nextToken: string | undefined;
  do {
    const page = await ok(v1.GET('/v1/invoices', { params: { query: { status: 'open', limit: 1000, nextToken } } }));
    count += page.data.length;
    nextToken = page.nextToken;
  } while (nextToken);
  return count;
}

/** The billing pages, one link each (the current one marked). */
export function BillingNav({ path }: { path: string }) {
  const links: [string, string][] = [
    ['/billing', 'Invoices and subscriptions'],
    ['/billing/payments', 'Payment history'],
    ...(useIsClient() ? [['/billing/cards', 'Saved cards'] as [string, string]] : []),
  ];
  return (
    <nav aria-label="Billing" class="billing-nav">
      <ul>
        {links.map(([href, label]) => (
          <li key={href}>
            <Link href={href} current={path === href}>
              {label}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/** Facts as a list of terms and values (an invoice's summary, its totals). */
export function Facts({ children }: { children: ComponentChildren }) {
  return <dl class="facts">{children}</dl>;
}

export function Fact({ term, children, strong = false }: { term: string; children: ComponentChildren; strong?: boolean }) {
  return (
    <div class={strong ? 'fact strong' : 'fact'}>
      <dt>{term}</dt>
      <dd>{children}</dd>
    </div>
  );
}

/**
 * A card's number, expiry and security code, named as the API's body names them (`card.number`…), so that the
 * API's word about one (`body.card.number`: not a card it takes; `body.card.expYear`: expired) shows beside it.
 */
export function CardFields({ error }: { error: unknown }) {
  return (
    <div class="card-fields">
      <Field label="Card number" name="card.number" error={error} class="card-number">
        {(props) => (
          <input
            {...props}
            autocomplete="cc-number"
            inputMode="numeric"
            required
            pattern="[0-9 \-]{12,23}"
            maxLength={23}
            spellcheck={false}
          />
        )}
      </Field>
      <Field label="Expiry month" name="card.expMonth" hint="MM" error={error}>
        {(props) => <input {...props} autocomplete="cc-exp-month" inputMode="numeric" required pattern="0?[1-9]|1[0-2]" maxLength={2} />}
      </Field>
      <Field label="Expiry year" name="card.expYear" hint="YY or YYYY" error={error}>
        {(props) => <input {...props} autocomplete="cc-exp-year" inputMode="numeric" required pattern="[0-9]{2}|[0-9]{4}" maxLength={4} />}
      </Field>
      <Field label="Security code" name="card.cvc" hint="3 or 4 digits" error={error}>
        {(props) => (
          <input {...props} type="password" autocomplete="cc-csc" inputMode="numeric" required pattern="[0-9]{3,4}" maxLength={4} />
        )}
      </Field>
    </div>
  );
}

/** The card typed into CardFields, as the API's body takes it (spaces and dashes out; a two-digit year in this century). */
export function cardOf(form: HTMLFormElement) {
  const data = new FormData(form);
  const field = (name: string) => String(data.get(name) ?? '').trim();
  const year = Number(field('card.expYear'));
  return {
    number: field('card.number').replace(/[\s-]/g, ''),
    expMonth: Number(field('card.expMonth')),
    expYear: year < 100 ? 2000 + year : year,
    cvc: field('card.cvc'),
  };
}
