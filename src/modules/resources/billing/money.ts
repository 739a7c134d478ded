/**
 * Money without binary floating point: amounts are integer cents; quantities (up to 4 decimals) and tax
 * percentages (up to 3) are read from their decimal text into scaled integers (BigInt), multiplied, and
 * rounded half up to a cent once.
 */

/** `value` as an integer scaled by 10^places, or null when it has more decimals (or is not a plain non-negative number). */
export function scaled(value: number, places: number): bigint | null {
  const text = String(value);
  const match = /^(\d+)(?:\.(\d+))?$/.exec(text);
  if (!match || (match[2]?.length ?? 0) > places) return null;
  return BigInt(match[1] + (match[2] ?? '').padEnd(places, '0'));
}

/** n / d rounded half up, for n ≥ 0 and d > 0. */
const divideHalfUp = (n: bigint, d: bigint): bigint => (n * 2n + d) / (2n * d);

export const QUANTITY_PLACES = 4;
export const TAX_PLACES = 3;

/** A line's total in cents: amount × quantity, rounded half up to a cent. */
export function lineTotal(amountCents: number, quantity: number): number {
  const q = scaled(quantity, QUANTITY_PLACES);
  if (q === null) throw new Error(`quantity ${quantity} has more than ${QUANTITY_PLACES} decimals`);
  return Number(divideHalfUp(BigInt(amountCents) * q, 10n ** BigInt(QUANTITY_PLACES)));
}

/** Tax in cents: subtotal × taxPercentage / 100, rounded half up to a cent. */
export function taxOf(subtotalCents: number, taxPercentage: number): number {
  const t = scaled(taxPercentage, TAX_PLACES);
  if (t === null) throw new Error(`taxPercentage ${taxPercentage} has more than ${TAX_PLACES} decimals`);
  return Number(divideHalfUp(BigInt(subtotalCents) * t, 100n * 10n ** BigInt(TAX_PLACES)));
}

/**
 * An amount of cents for people: "$1,234.50" (or, with `code`, "USD 1,234.50"); always two decimals, as
 * amounts are cents. A currency Intl does not know is written "1234.50 XYZ".
 */
export function formatMoney(cents: number, currency: string, currencyDisplay: 'narrowSymbol' | 'code' = 'narrowSymbol'): string {
  const code = currency.toUpperCase();
  try {
    return new Intl.NumberFormat('en-US', {
      style: 'currency',
      currency: code,
      currencyDisplay,
      minimumFractionDigits: 2,
      maximumFractionDigits: 2,
    })
      .format(cents / 100)
      .replace(/\u00a0/g, ' ');
  } catch {
    return `${(cents / 100).toFixed(2)} ${code}`;
  }
}
