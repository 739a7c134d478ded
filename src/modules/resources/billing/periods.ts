/** Billing periods, anniversary-based and computed from the start (never from the previous period, so no drift). */

export const INTERVALS = ['day', 'week', 'month', 'quarterly', 'yearly'] as const;
export type Interval = (typeof INTERVALS)[number];

/** An interval as given (`quarter` and `year` are accepted) → as stored. */
export const normalInterval = (interval: Interval | 'quarter' | 'year'): Interval =>
  interval === 'quarter' ? 'quarterly' : interval === 'year' ? 'yearly' : interval;

/** Every currency defaults to this (prices, templates, invoices). */
export const DEFAULT_CURRENCY = 'usd';

const DAY_MS = 86_400_000;
const MONTHS: Record<string, number> = { month: 1, quarterly: 3, yearly: 12 };

/**
 * When period `k` (0 = the first) starts, in ms. Months count from the start's month; a start on the
 * 29th–31st falls on the last day of shorter months and returns to its own day after (31 January →
 * 28/29 February → 31 March), at the start's time of day (UTC).
 */
export function periodStart(startMs: number, interval: Interval, intervalCount: number, k: number): number {
  if (interval === 'day' || interval === 'week') return startMs + k * intervalCount * (interval === 'day' ? 1 : 7) * DAY_MS;
  const start = new Date(startMs);
  const month = start.getUTCMonth() + k * intervalCount * MONTHS[interval];
  const year = start.getUTCFullYear() + Math.floor(month / 12);
  const monthOfYear = ((month % 12) + 12) % 12;
  const lastDay = new Date(Date.UTC(year, monthOfYear + 1, 0)).getUTCDate();
  const timeOfDay = startMs - Date.UTC(start.getUTCFullYear(), start.getUTCMonth(), start.getUTCDate());
  return Date.UTC(year, monthOfYear, Math.min(start.getUTCDate(), lastDay)) + timeOfDay;
}
