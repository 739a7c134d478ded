/**
 * An amount of the API (integer cents) in its currency, as the reader's locale writes it ("$1,234.50"); a currency
 * the browser does not know is written with its code ("1234.50 xyz").
 */
export function formatMoney(cents: number, currency: string): string {
  try {
    return new Intl.NumberFormat(undefined, { style: 'currency', currency: currency.toUpperCase() }).format(cents / 100);
  } catch {
    return `${(cents / 100).toFixed(2)} ${currency}`;
  }
}
