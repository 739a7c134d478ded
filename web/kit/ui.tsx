import type { ComponentChildren, JSX } from 'preact';
import { useCallback, useEffect, useId, useRef, useState } from 'preact/hooks';
import { ApiError } from './api.js';

/** The front end's name, from its index.html's <title> as first served ("Portal console", "Portal"). */
const SITE_NAME = typeof document === 'undefined' ? '' : document.title;

/**
 * What went wrong, in words: the service's message (a schema failure names its fields by their place in the
 * request, `body.password`: the field's name is enough), with its status and code when `codes` (for operators).
 */
export function messageOf(error: unknown, codes = false): string {
  if (error instanceof ApiError) {
    const message = error.message.replace(/\bbody\./g, '');
    return codes && error.status ? `${message} (${error.status} ${error.code})` : message;
  }
  if (error instanceof Error) return error.message;
  return String(error);
}

/**
 * The page's one h1, focused when the page opens (a screen reader announces where a navigation landed; keyboard
 * users continue from the top of the content), and the document title: the page, its context, the site.
 */
export function PageHeading({ title, context, children }: { title: string; context?: string; children?: ComponentChildren }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = [title, context, SITE_NAME].filter(Boolean).join(' · ');
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

/**
 * What went wrong, as an alert; `focus` takes the focus to it when it appears (the keyboard and a screen reader are
 * taken there: a form's failure), `codes` adds the status and code.
 */
export function ErrorMessage({
  error,
  focus = false,
  codes = false,
  children,
}: {
  error: unknown;
  focus?: boolean;
  codes?: boolean;
  children?: ComponentChildren;
}) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (focus && error) box.current?.focus();
  }, [error, focus]);
  if (error === null || error === undefined || error === false) return null;
  return (
    <div class="notice notice-error" role="alert" tabIndex={focus ? -1 : undefined} ref={box}>
      <p>{messageOf(error, codes)}</p>
      {children}
    </div>
  );
}

/**
 * That something is on its way, said once to a screen reader (a status region: polite, announced as it appears) and
 * shown where it will be; `quiet`: said only (what is shown stays until the answer replaces it).
 */
export function Loading({ children, quiet = false }: { children: ComponentChildren; quiet?: boolean }) {
  return (
    <p role="status" class={quiet ? 'loading visually-hidden' : 'loading'}>
      {children}
    </p>
  );
}

/**
 * A read that failed, as an alert with **Try again** (`retry` reads it again): the page stays where it was, and
 * the reader need not reload it all. The alert is announced by its role; the focus stays where the page put it
 * (its heading, which names the failure).
 */
export function LoadFailed({
  error,
  retry,
  codes = false,
  children,
}: {
  error: unknown;
  retry: () => void;
  codes?: boolean;
  children?: ComponentChildren;
}) {
  return (
    <ErrorMessage error={error} codes={codes}>
      {children}
      <p class="actions">
        <button type="button" class="secondary" onClick={retry}>
          Try again
        </button>
      </p>
    </ErrorMessage>
  );
}

/**
 * What an action did, in a polite live region that is on the page before it speaks (a region added with its text
 * is not always read out); empty until then.
 */
export function Status({ children }: { children?: ComponentChildren }) {
  return <div role="status">{children ? <div class="notice notice-ok">{children}</div> : null}</div>;
}

export type ControlProps = { id: string; name?: string; 'aria-describedby'?: string; 'aria-invalid'?: 'true' };

/**
 * A label bound to its control, an optional hint, and the server's message about this field (a failed action's
 * `data[].path`, when `error` and `name` are given) beside it, read with the control.
 */
export function Field({
  label,
  name,
  hint,
  error,
  class: className,
  children,
}: {
  label: string;
  /** the control's name: given to it, and the key of its problem in `error` */
  name?: string;
  hint?: string;
  /** the failed action's error: its message for `name`, if any, is shown */
  error?: unknown;
  class?: string;
  children: (props: ControlProps) => JSX.Element;
}) {
  const id = useId();
  const problem = name && error instanceof ApiError ? error.fields[name] : undefined;
  const described = [hint ? `${id}-hint` : '', problem ? `${id}-error` : ''].filter(Boolean).join(' ');
  return (
    <div class={className ? `field ${className}` : 'field'}>
      <label for={id}>{label}</label>
      {hint ? (
        <small id={`${id}-hint`} class="hint">
          {hint}
        </small>
      ) : null}
      {children({
        id,
        ...(name ? { name } : {}),
        ...(described ? { 'aria-describedby': described } : {}),
        ...(problem ? { 'aria-invalid': 'true' } : {}),
      })}
      {problem ? (
        <small id={`${id}-error`} class="field-error">
          {sentence(problem)}
        </small>
      ) : null}
    </div>
  );
}

/** The server's word about a field (`must NOT have fewer than 12 characters`) as a sentence. */
const sentence = (text: string) => `${text.charAt(0).toUpperCase()}${text.slice(1)}${/[.!?]$/.test(text) ? '' : '.'}`;

/** A form's field as text, as typed (FormData gives File for file inputs, which these forms have none of). */
export const text = (form: HTMLFormElement, name: string) => String(new FormData(form).get(name) ?? '');

/**
 * The state of a form's or a button's action: busy while it runs, its error (cleared when it runs again), what it
 * did (the message it returns) and when (see latest).
 */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState<{ message: string; at: number } | null>(null);
  // `action` answers its message (what it did) or nothing to say.
  const run = useCallback(async (action: () => Promise<unknown>): Promise<boolean> => {
    setBusy(true);
    setError(null);
    setDone(null);
    try {
      const message = await action();
      if (typeof message === 'string' && message) setDone({ message, at: performance.now() });
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
    (question: string, action: () => Promise<unknown>) => {
      if (confirmed(question)) void run(action);
    },
    [run],
  );
  return { busy, error, done: done?.message ?? null, doneAt: done?.at ?? 0, run, runIfConfirmed };
}

export type Action = ReturnType<typeof useAction>;

/** What the most recent of several actions did: the one message a page's status line shows. */
export function latest(...actions: { done: string | null; doneAt: number }[]): string | null {
  let newest: { done: string | null; doneAt: number } | undefined;
  for (const action of actions) if (action.done && (!newest || action.doneAt > newest.doneAt)) newest = action;
  return newest?.done ?? null;
}

/** Window.confirm, named so that every destructive action reads the same. */
export function confirmed(question: string): boolean {
  return window.confirm(question);
}

export interface Loaded<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => void;
  /** Loads again, and settles once that load's answer (or error) is in the state. */
  reloaded: () => Promise<void>;
}

/** Runs `load` now and whenever `deps` change; a stale answer never overwrites a newer one. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error: unknown; loading: boolean }>({ error: null, loading: true });
  const [round, setRound] = useState(0);
  // Who waits for a reload: a form rebuilt from the answer must not take edits before it lands (they would be lost).
  const waiting = useRef<(() => void)[]>([]);
  useEffect(() => {
    let current = true;
    const settle = (next: { data?: T; error: unknown; loading: boolean }) => {
      if (!current) return;
      setState(next);
      for (const resolve of waiting.current.splice(0)) resolve();
    };
    setState((previous) => ({ ...previous, loading: true }));
    load().then(
      (data) => settle({ data, error: null, loading: false }),
      (error) => settle({ error, loading: false }),
    );
    return () => {
      current = false;
    };
  }, [...deps, round]);
  const reload = useCallback(() => setRound((n) => n + 1), []);
  const reloaded = useCallback(
    () =>
      new Promise<void>((resolve) => {
        waiting.current.push(resolve);
        reload();
      }),
    [reload],
  );
  return { data: state.data, error: state.error, loading: state.loading, reload, reloaded };
}

/** A form's submit button in its row of actions, disabled while the form's action runs (`busy`). */
export function Submit({ label, kind, busy }: { label: string; kind?: 'secondary' | 'danger'; busy: boolean }) {
  return (
    <div class="actions">
      <button type="submit" class={kind} disabled={busy}>
        {label}
      </button>
    </div>
  );
}
