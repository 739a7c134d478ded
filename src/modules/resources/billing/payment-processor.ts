import { createHash } from 'node:crypto';

/**
 * What this service needs of a payment processor: cards turned into tokens (the number never stored here),
 * charges and refunds, each idempotent on its key (a retried request never charges twice). The built-in
 * `sandboxProcessor` behaves like a processor's test mode; a real one plugs in behind the same interface.
 */
export interface PaymentProcessor {
  /** The card's token, brand and last four digits; or why the processor does not take it. */
  tokenize(card: CardDetails): TokenizedCard | { problem: string };
  charge(request: { token: string; amount: number; currency: string; idempotencyKey: string }): Promise<ChargeOutcome>;
  refund(request: { chargeReference: string; amount: number; idempotencyKey: string }): Promise<RefundOutcome>;
}

interface CardDetails {
  number: string;
  expMonth: number;
  expYear: number;
}

interface TokenizedCard {
  token: string;
  brand: string;
  last4: string;
}

type ChargeOutcome = { status: 'succeeded'; reference: string } | { status: 'failed'; declineCode: string; message: string };

type RefundOutcome = { status: 'succeeded' } | { status: 'failed'; message: string };

/** How a sandbox test card behaves: the last part of its token and of its charges' references. */
type Behaviour = 'succeeds' | 'declined' | 'insufficientFunds' | 'lostCard' | 'refundFails';

/**
 * The sandbox's test cards: the numbers processors' test modes document (Stripe's), each with its behaviour.
 * Any other number is refused, as a processor in test mode refuses a real card.
 */
const SANDBOX_TEST_CARDS: Readonly<Record<string, { brand: string; behaviour: Behaviour }>> = {
  '4242424242424242': { brand: 'visa', behaviour: 'succeeds' },
  '5555555555554444': { brand: 'mastercard', behaviour: 'succeeds' },
  '378282246310005': { brand: 'amex', behaviour: 'succeeds' },
  '4000000000000002': { brand: 'visa', behaviour: 'declined' },
  '4000000000009995': { brand: 'visa', behaviour: 'insufficientFunds' },
  '4000000000009987': { brand: 'visa', behaviour: 'lostCard' },
  '4000000000005126': { brand: 'visa', behaviour: 'refundFails' },
};

const DECLINES: Partial<Record<Behaviour, { declineCode: string; message: string }>> = {
  declined: { declineCode: 'generic_decline', message: 'Your card was declined.' },
  insufficientFunds: { declineCode: 'insufficient_funds', message: 'Your card has insufficient funds.' },
  lostCard: { declineCode: 'lost_card', message: 'Your card was declined.' },
};

const TOKEN_PREFIX = 'sandbox_card_';

/** A charge's reference from its idempotency key: the same key always answers the same charge. */
const referenceOf = (idempotencyKey: string, behaviour: Behaviour) =>
  `ch_sandbox_${createHash('sha256').update(idempotencyKey).digest('hex').slice(0, 24)}_${behaviour}`;

const behaviourOf = (text: string, prefix: string): Behaviour | undefined => {
  const behaviour = text.startsWith(prefix) ? text.slice(text.lastIndexOf('_') + 1) : '';
  return Object.values(SANDBOX_TEST_CARDS).some((card) => card.behaviour === behaviour) ? (behaviour as Behaviour) : undefined;
};

/**
 * The built-in processor: no network, no state. Its tokens and charge references say how the card behaves, so
 * every process answers a charge or refund alike and a repeated idempotency key finds the same charge.
 * The card's expiry is checked by the caller, against the workspace's clock (a test clock can expire a card).
 */
export const sandboxProcessor: PaymentProcessor = {
  tokenize(card) {
    const test = SANDBOX_TEST_CARDS[card.number];
    if (!test) return { problem: 'is not a sandbox test card (4242424242424242 succeeds; docs/api.md lists the others)' };
    return { token: `${TOKEN_PREFIX}${test.brand}_${test.behaviour}`, brand: test.brand, last4: card.number.slice(-4) };
  },
  async charge({ token, idempotencyKey }) {
    const behaviour = behaviourOf(token, TOKEN_PREFIX);
    if (!behaviour) return { status: 'failed', declineCode: 'invalid_token', message: 'The payment method is not known to the processor.' };
    const decline = DECLINES[behaviour];
    return decline ? { status: 'failed', ...decline } : { status: 'succeeded', reference: referenceOf(idempotencyKey, behaviour) };
  },
  async refund({ chargeReference }) {
    const behaviour = behaviourOf(chargeReference, 'ch_sandbox_');
    if (!behaviour) return { status: 'failed', message: 'The charge is not known to the processor.' };
    return behaviour === 'refundFails' ? { status: 'failed', message: 'The card’s issuer refused the refund.' } : { status: 'succeeded' };
  },
};
