import type { ComponentChildren, JSX } from 'preact';
import { useCallback, useEffect, useId, useRef, useState } from 'preact/hooks';
import { ApiError, type Page } from './api.js';

// --- formatting ---------------------------------------------------------------------------------------

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

export function formatDate(value: string | null | undefined): string {
  if (!value) return '—';
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : dateTime.format(date);
}

export function formatMoney(cents: number, currency: string): string {
  try {
    return new Intl.NumberFormat(undefined, { style: 'currency', currency: currency.toUpperCase() }).format(cents / 100);
  } catch {
    return `${(cents / 100).toFixed(2)} ${currency}`;
  }
}

export const formatNumber = (n: number) => new Intl.NumberFormat().format(n);

export function messageOf(error: unknown): string {
  if (error instanceof ApiError) return error.status ? `${error.message} (${error.status} ${error.code})` : error.message;
  if (error instanceof Error) return error.message;
  return String(error);
}

// --- page scaffolding -------------------------------------------------------------------------------------

/**
 * The page's one h1, focused when the page opens (a screen reader announces where a navigation
 * landed; keyboard users continue from the top of the content), and the document title.
 */
export function PageHeading({ title, context, children }: { title: string; context?: string; children?: ComponentChildren }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = [title, context, 'Portal console'].filter(Boolean).join(' · ');
    heading.current?.focus({ preventScroll: true });
  }, [title, context]);
  return (
    <div class="page-heading">
      <h1 ref={heading} tabIndex={-1}>
        {title}
      </h1>
      {children}
    </div>
  );
}

export function ErrorMessage({ error }: { error: unknown }) {
  if (error === null || error === undefined) return null;
  return (
    <p class="notice notice-error" role="alert">
      {messageOf(error)}
    </p>
  );
}

/** A polite live region: what the last action did. */
export function Status({ message }: { message: string | null }) {
  return (
    <p class={message ? 'notice notice-ok' : 'visually-hidden'} role="status">
      {message ?? ''}
    </p>
  );
}

interface FieldProps {
  label: string;
  hint?: string;
  children: (props: { id: string; 'aria-describedby'?: string }) => JSX.Element;
  class?: string;
}

/** A label bound to its control (and an optional hint read with it). */
export function Field({ label, hint, children, class: className }: FieldProps) {
  const id = useId();
  const hintId = `${id}-hint`;
  return (
    <div class={`field ${className ?? ''}`}>
      <label for={id}>{label}</label>
      {children({ id, ...(hint ? { 'aria-describedby': hintId } : {}) })}
      {hint ? (
        <small id={hintId} class="hint">
          {hint}
        </small>
      ) : null}
    </div>
  );
}

// --- data ---------------------------------------------------------------------------------------------------

export interface Loaded<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => void;
}

/** Runs `load` now and whenever `deps` change; a stale answer never overwrites a newer one. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error: unknown; loading: boolean }>({ error: null, loading: true });
  const [round, setRound] = useState(0);
  useEffect(() => {
    let current = true;
    setState((previous) => ({ ...previous, loading: true }));
    load().then(
      (data) => current && setState({ data, error: null, loading: false }),
      (error) => current && setState({ error, loading: false }),
    );
    return () => {
      current = false;
    };
  }, [...deps, round]);
  const reload = useCallback(() => setRound((n) => n + 1), []);
  return { data: state.data, error: state.error, loading: state.loading, reload };
}

export interface Paged<T> extends Loaded<Page<T>> {
  page: number;
  next: () => void;
  previous: () => void;
  first: () => void;
}

/**
 * One page of a `{data, nextToken}` list at a time: Next follows the API's nextToken, Previous goes
 * back through the tokens already seen; a change of `deps` (a new search) starts at the first page.
 */
export function usePaged<T>(load: (nextToken: string | undefined) => Promise<Page<T>>, deps: unknown[]): Paged<T> {
  const key = JSON.stringify(deps);
  const [state, setState] = useState<{ key: string; trail: (string | undefined)[] }>({ key, trail: [undefined] });
  const trail = state.key === key ? state.trail : [undefined];
  const token = trail[trail.length - 1];
  const loaded = useLoad(() => load(token), [key, token]);
  const nextToken = loaded.data?.nextToken;
  return {
    ...loaded,
    page: trail.length,
    next: () => nextToken && setState({ key, trail: [...trail, nextToken] }),
    previous: () => setState({ key, trail: trail.length > 1 ? trail.slice(0, -1) : trail }),
    first: () => setState({ key, trail: [undefined] }),
  };
}

export function Pager({ list, label }: { list: Paged<unknown>; label: string }) {
  const hasNext = Boolean(list.data?.nextToken);
  if (list.page === 1 && !hasNext) return null;
  return (
    <nav class="pager" aria-label={`${label} pages`}>
      <button type="button" class="secondary" onClick={list.previous} disabled={list.page === 1 || list.loading}>
        Previous page
      </button>
      <span aria-live="polite">Page {list.page}</span>
      <button type="button" class="secondary" onClick={list.next} disabled={!hasNext || list.loading}>
        Next page
      </button>
    </nav>
  );
}

/** The state of a button's action: busy while it runs, its error, what it did (and when, see latest). */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState<{ message: string; at: number } | null>(null);
  const run = useCallback(async (action: () => Promise<string | undefined>): Promise<boolean> => {
    setBusy(true);
    setError(null);
    setDone(null);
    try {
      const message = await action();
      if (message) setDone({ message, at: performance.now() });
      return true;
    } catch (e) {
      setError(e);
      return false;
    } finally {
      setBusy(false);
    }
  }, []);
  // A destructive action (delete, void, revoke…) asks first and runs only on a yes.
  const runIfConfirmed = useCallback(
    (question: string, action: () => Promise<string | undefined>) => {
      if (confirmed(question)) void run(action);
    },
    [run],
  );
  return { busy, error, done: done?.message ?? null, doneAt: done?.at ?? 0, run, runIfConfirmed };
}

type Action = ReturnType<typeof useAction>;

/** What the most recent of several actions did: the one message a page's status line shows. */
export function latest(...actions: { done: string | null; doneAt: number }[]): string | null {
  let newest: { done: string | null; doneAt: number } | undefined;
  for (const action of actions) if (action.done && (!newest || action.doneAt > newest.doneAt)) newest = action;
  return newest?.done ?? null;
}

/** A table's state line: loading, the error, or that there is nothing. */
export function ListState({ list, empty, what }: { list: Loaded<{ data: unknown[] }>; empty: string; what: string }) {
  if (list.error) return <ErrorMessage error={list.error} />;
  if (list.loading && !list.data) return <p aria-live="polite">Loading {what}…</p>;
  if (list.data && list.data.data.length === 0) return <p class="empty">{empty}</p>;
  return null;
}

// --- tables and forms ------------------------------------------------------------------------------------------

/** A list's table: every list names itself with a hidden caption and leaves its row buttons' column unlabelled. */
export function DataTable({
  caption,
  columns,
  actions = false,
  children,
}: {
  caption: string;
  columns: string[];
  actions?: boolean;
  children: ComponentChildren;
}) {
  return (
    <table class="data">
      <caption class="visually-hidden">{caption}</caption>
      <thead>
        <tr>
          {columns.map((column) => (
            <th key={column} scope="col">
              {column}
            </th>
          ))}
          {actions ? (
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          ) : null}
        </tr>
      </thead>
      <tbody>{children}</tbody>
    </table>
  );
}

/** A row's button, its accessible name saying which row it acts on: every row repeats the same visible word. */
export function RowButton({
  label,
  kind,
  busy,
  onClick,
  children,
}: {
  label?: string;
  kind?: 'secondary' | 'danger';
  busy?: boolean;
  onClick: () => void;
  children: ComponentChildren;
}) {
  return (
    <button type="button" class={kind} onClick={onClick} disabled={busy} aria-label={label}>
      {children}
    </button>
  );
}

/** A row swapped for its inline edit form: Save runs `save` on the form's data and closes the form once it worked. */
export function EditRow({
  columns,
  label,
  action,
  save,
  close,
  children,
}: {
  columns: number;
  label: string;
  action: Action;
  save: (data: FormData) => Promise<string | undefined>;
  close: () => void;
  children: ComponentChildren;
}) {
  const submit = async (event: Event) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget as HTMLFormElement);
    if (await action.run(() => save(data))) close();
  };
  return (
    <tr>
      <td colSpan={columns}>
        <form class="inline-form" onSubmit={submit} ref={focusFirstField} aria-label={label}>
          {children}
          <div class="actions">
            <button type="submit" disabled={action.busy}>
              Save
            </button>
            <button type="button" class="secondary" onClick={close}>
              Cancel
            </button>
          </div>
        </form>
      </td>
    </tr>
  );
}

/** A page's "add one" panel: `create` gets the form's data, and the form empties once it worked. */
export function CreatePanel({
  id,
  title,
  submitLabel,
  action,
  create,
  children,
}: {
  id: string;
  title: string;
  submitLabel: string;
  action: Action;
  create: (data: FormData) => Promise<string | undefined>;
  children: ComponentChildren;
}) {
  const submit = async (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    await action.run(async () => {
      const message = await create(data);
      form.reset();
      return message;
    });
  };
  return (
    <section class="panel" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      <ErrorMessage error={action.error} />
      <form class="inline-form" onSubmit={submit}>
        {children}
        <div class="actions">
          <button type="submit" disabled={action.busy}>
            {submitLabel}
          </button>
        </div>
      </form>
    </section>
  );
}

/** A list's search form: `onSearch` gets the form's data; `buttons` follow the submit button. */
export function SearchForm({
  label,
  submitLabel,
  onSearch,
  buttons,
  children,
}: {
  label: string;
  submitLabel: string;
  onSearch: (data: FormData) => void;
  buttons?: ComponentChildren;
  children: ComponentChildren;
}) {
  const submit = (event: Event) => {
    event.preventDefault();
    onSearch(new FormData(event.currentTarget as HTMLFormElement));
  };
  return (
    <search aria-label={label}>
      <form class="search" onSubmit={submit}>
        {children}
        <div class="actions">
          <button type="submit">{submitLabel}</button>
          {buttons}
        </div>
      </form>
    </search>
  );
}

// --- secrets --------------------------------------------------------------------------------------------------

/**
 * A secret the server answers once (an API key, a signing secret): shown with a copy button until
 * dismissed, then gone from the page and from memory.
 */
export function SecretOnce({ title, value, onDone }: { title: string; value: string; onDone: () => void }) {
  const [copied, setCopied] = useState<string | null>(null);
  const field = useRef<HTMLInputElement>(null);
  const box = useRef<HTMLElement>(null);
  useEffect(() => box.current?.focus(), []);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied('Copied to the clipboard.');
    } catch {
      field.current?.select();
      setCopied('Copying is not allowed here: the key is selected, press Ctrl+C (⌘C).');
    }
  };
  const id = useId();
  return (
    <section class="secret" aria-labelledby={`${id}-title`} tabIndex={-1} ref={box}>
      <h2 id={`${id}-title`}>{title}</h2>
      <p>Copy it now: it is shown only once and cannot be retrieved later.</p>
      <div class="secret-row">
        <label class="visually-hidden" for={id}>
          {title}
        </label>
        <input id={id} ref={field} class="mono" readOnly value={value} onFocus={(e) => e.currentTarget.select()} />
        <button type="button" onClick={copy}>
          Copy
        </button>
      </div>
      <p role="status" class="hint">
        {copied ?? ''}
      </p>
      <button type="button" class="secondary" onClick={onDone}>
        I have saved it
      </button>
    </section>
  );
}

/**
 * A form's ref that focuses its first field when the form appears (an inline edit opened by a button):
 * one function for every form, so Preact calls it on mount only, not on each render.
 */
function focusFirstField(form: HTMLFormElement | null) {
  form?.querySelector<HTMLElement>('input:not([type=hidden]), select, textarea')?.focus();
}

/** A status as a coloured badge (the word itself carries the meaning; colour only repeats it). */
export function Badge({ value }: { value: string }) {
  return <span class={`badge badge-${value}`}>{value}</span>;
}

/** Window.confirm, named so that every destructive action reads the same. */
export function confirmed(question: string): boolean {
  return window.confirm(question);
}
