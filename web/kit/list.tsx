import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import type { Page } from './api.js';
import { type Action, type ControlProps, ErrorMessage, LoadFailed, type Loaded, Loading, useLoad } from './ui.js';
import './list.css';

// Lists: a page at a time, their filters, their table (cards on a phone), their row actions and inline forms.

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

/** A list's filters: each a form field's name and its value ('' when unset). */
type Filters = Record<string, string>;

export interface ListQuery<F extends Filters, T> {
  /** the filters in force */
  filters: F;
  /** whether any filter differs from none */
  filtered: boolean;
  /** the current page, reloaded when the filters change */
  list: Paged<T>;
  /** the search form's submit: every filter from the form's field of its name, trimmed */
  search: (data: FormData) => void;
  /** back to no filter */
  clear: () => void;
}

/**
 * The filter state of a list page: `none` names the filters (the form's fields) and their unset values; `load`
 * gets one page for the filters in force; a new search starts at the first page.
 */
export function useListQuery<F extends Filters, T>(
  none: F,
  load: (filters: F, nextToken: string | undefined) => Promise<Page<T>>,
  deps: unknown[],
): ListQuery<F, T> {
  const [filters, setFilters] = useState<F>(none);
  const list = usePaged((nextToken) => load(filters, nextToken), [...deps, JSON.stringify(filters)]);
  const search = (data: FormData) =>
    setFilters(Object.fromEntries(Object.keys(none).map((name) => [name, String(data.get(name) ?? '').trim()])) as F);
  const filtered = Object.keys(none).some((name) => filters[name] !== none[name]);
  return { filters, filtered, list, search, clear: () => setFilters(none) };
}

/** A list query's search form, with a button back to no filter (`clearLabel`) while one is in force. */
export function FilterForm({
  query,
  label,
  submitLabel = 'Filter',
  clearLabel = 'Clear filters',
  buttons,
  children,
}: {
  query: ListQuery<Filters, unknown>;
  label: string;
  submitLabel?: string;
  /** null: no such button */
  clearLabel?: string | null;
  /** more buttons, after those */
  buttons?: ComponentChildren;
  children: ComponentChildren;
}) {
  return (
    <SearchForm
      label={label}
      submitLabel={submitLabel}
      onSearch={query.search}
      buttons={
        <>
          {clearLabel && query.filtered ? (
            <button type="reset" class="secondary" onClick={query.clear}>
              {clearLabel}
            </button>
          ) : null}
          {buttons}
        </>
      }
    >
      {children}
    </SearchForm>
  );
}

/**
 * A table's state line: loading (a status; while the last answer is still shown, a status said but not shown), the
 * error (an alert, with Try again), or that there is nothing.
 */
export function ListState({ list, empty, what }: { list: Loaded<{ data: unknown[] }>; empty: string; what: string }) {
  // Loading first: after Try again, the failure gives way to the read under way.
  if (list.loading && !list.data) return <Loading>Loading {what}…</Loading>;
  return (
    <>
      {list.loading ? <Loading quiet>Loading {what}…</Loading> : null}
      {list.error ? (
        <LoadFailed error={list.error} retry={list.reload} codes />
      ) : list.data?.data.length === 0 ? (
        <p class="empty">{empty}</p>
      ) : null}
    </>
  );
}

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
      <ErrorMessage error={action.error} codes />
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

/**
 * A search box inside another form (a picker's "Find a company"): Enter or **Find** runs `onFind` without submitting
 * the form around it. The control of a `Field` (`props`).
 */
export function FindInput({
  props,
  value,
  onValue,
  onFind,
}: {
  props: ControlProps;
  value: string;
  onValue: (value: string) => void;
  onFind: () => void;
}) {
  return (
    <span class="find-input">
      <input
        {...props}
        type="search"
        value={value}
        maxLength={100}
        onInput={(event) => onValue(event.currentTarget.value)}
        onKeyDown={(event) => {
          if (event.key === 'Enter') {
            event.preventDefault();
            onFind();
          }
        }}
      />
      <button type="button" class="secondary" onClick={onFind}>
        Find
      </button>
    </span>
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
