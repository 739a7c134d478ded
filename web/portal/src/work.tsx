// What the work sections (tasks, forms, contracts) share: dates as a person reads them, counting what waits, and a
// form's failure told beside its fields.
import type { RefObject } from 'preact';
import { useEffect } from 'preact/hooks';
import type { Page } from '../../kit/api.js';
import { ApiError } from './api.js';
import { ErrorMessage } from './ui.js';

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const dayInUtc = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeZone: 'UTC' });

/** A moment the API recorded (RFC 3339), in the reader's time zone. */
export function formatWhen(value: string | undefined): string {
  const date = new Date(value ?? '');
  return Number.isNaN(date.getTime()) ? (value ?? '') : dateTime.format(date);
}

/** A day (YYYY-MM-DD, as date answers and fields hold it), as the reader writes days; as given when it is no day. */
export function formatDay(value: string): string {
  const date = new Date(`${value}T00:00:00Z`);
  return /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(date.getTime()) ? dayInUtc.format(date) : value;
}

/**
 * A due date: a day when it is midnight UTC (how a date without a time is sent, shown as that day wherever the
 * reader is), else the moment in the reader's time zone.
 */
export function formatDue(value: string): string {
  const day = /^(\d{4}-\d{2}-\d{2})T00:00:00(\.0+)?Z$/.exec(value);
  return day ? formatDay(day[1]) : formatWhen(value);
}

/** "1 task to do", "3 tasks to do". */
export const counted = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;

/** Lists read for a count, at most: 10 pages of 1,000 (what waits for one person is far less). */
const COUNT_PAGES = 10;

/** Every item of a list, following its pages, for counting what waits (the API has no count). */
export async function everyItem<T>(load: (nextToken: string | undefined) => Promise<Page<T>>): Promise<T[]> {
  const items: T[] = [];
  let nextToken: string | undefined;
  for (let page = 0; page < COUNT_PAGES; page++) {
    const answer = await load(nextToken);
    items.push(...answer.data);
    nextToken = answer.nextToken;
    if (!nextToken) break;
  }
  return items;
}

/** Whether the failure names one of the form's fields (its message is then shown beside it). */
const namesAField = (error: unknown, names: string[]) =>
  error instanceof ApiError && names.some((name) => error.fields[name] !== undefined);

/**
 * A form's failure above it: when the server named fields of the form, how many need a change (each message is
 * beside its field, and the first such field takes the focus); otherwise the server's message.
 */
export function FormProblem({ error, names, form }: { error: unknown; names: string[]; form: RefObject<HTMLFormElement | null> }) {
  const beside = namesAField(error, names);
  useEffect(() => {
    if (beside) form.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  }, [error]);
  if (!error) return null;
  if (!beside) return <ErrorMessage error={error} focus />;
  const count = names.filter((name) => (error as ApiError).fields[name] !== undefined).length;
  const where = count === 1 ? 'the message beside it' : 'the message beside each';
  return <ErrorMessage error={new Error(`${counted(count, 'answer needs', 'answers need')} a change: see ${where}.`)} />;
}
