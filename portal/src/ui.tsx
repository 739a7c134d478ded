import type { ComponentChildren, JSX } from 'preact';
import { useCallback, useEffect, useId, useRef, useState } from 'preact/hooks';
import { ApiError, type SignInSession, type UserType } from './api.js';
import { navigate } from './router.js';

/** The shortest password the server takes (ASVS: 12, no composition rules). */
export const PASSWORD_MIN = 12;
export const PASSWORD_MAX = 128;

/** Where a sign-in answer leads: the account when signed in, else the step still due. */
export function continueSignIn(session: SignInSession) {
  if (session.stage === 'mfaRequired') navigate('totp', { replace: true });
  else if (session.stage === 'mfaEnrolmentRequired') navigate('enrol-mfa', { replace: true });
  else navigate('', { replace: true });
}

/**
 * The page's one h1, focused when the page opens (a screen reader announces where the navigation landed; the
 * keyboard continues from there), and the document's title.
 */
export function PageHeading({ title }: { title: string }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${title} · Portal`;
    heading.current?.focus({ preventScroll: true });
  }, [title]);
  return (
    <h1 ref={heading} tabIndex={-1}>
      {title}
    </h1>
  );
}

/** What went wrong, as an alert that takes the focus (so the keyboard and a screen reader are taken to it). */
export function ErrorAlert({ error, children }: { error: unknown; children?: ComponentChildren }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (error) box.current?.focus();
  }, [error]);
  if (!error) return null;
  return (
    <div class="notice notice-error" role="alert" tabIndex={-1} ref={box}>
      <p>{messageOf(error)}</p>
      {children}
    </div>
  );
}

function messageOf(error: unknown): string {
  // A schema failure names its fields by their place in the request (`body.password`): the field's name is enough.
  if (error instanceof ApiError) return error.message.replace(/\bbody\./g, '');
  if (error instanceof Error) return error.message;
  return String(error);
}

/** The API refused an e-mailed link's token (used, expired, replaced) or the session: 401. */
export const refused = (error: unknown) => error instanceof ApiError && error.status === 401;

/**
 * What an action did, in a polite live region that is on the page before it speaks (a region added with its text
 * is not always read out); empty until then.
 */
export function Status({ children }: { children?: ComponentChildren }) {
  return <div role="status">{children ? <div class="notice notice-ok">{children}</div> : null}</div>;
}

/** What an action did, in place of its form (gone): the focus is taken there, so it is read out. */
export function Done({ children }: { children: ComponentChildren }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => box.current?.focus(), []);
  return (
    <div class="notice notice-ok" role="status" tabIndex={-1} ref={box}>
      {children}
    </div>
  );
}

type ControlProps = { id: string; name: string; 'aria-describedby'?: string; 'aria-invalid'?: 'true' };

/**
 * A label bound to its control, an optional hint, and the server's message about this field (`data[].path`)
 * beside it, read with the control.
 */
export function Field({
  label,
  name,
  hint,
  error,
  children,
}: {
  label: string;
  name: string;
  hint?: string;
  /** the failed action's error: its message for `name`, if any, is shown */
  error?: unknown;
  children: (props: ControlProps) => JSX.Element;
}) {
  const id = useId();
  const problem = error instanceof ApiError ? error.fields[name] : undefined;
  const described = [hint ? `${id}-hint` : '', problem ? `${id}-error` : ''].filter(Boolean).join(' ');
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {hint ? (
        <small id={`${id}-hint`} class="hint">
          {hint}
        </small>
      ) : null}
      {children({ id, name, ...(described ? { 'aria-describedby': described } : {}), ...(problem ? { 'aria-invalid': 'true' } : {}) })}
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

/** Client or staff: who signs in (the API's userType). */
export function UserTypeChoice({ value, onChange }: { value: UserType; onChange: (value: UserType) => void }) {
  const name = useId();
  const option = (type: UserType, label: string) => (
    <label class="choice">
      <input type="radio" name={name} value={type} checked={value === type} onChange={() => onChange(type)} />
      {label}
    </label>
  );
  return (
    <fieldset class="choices">
      <legend>I am</legend>
      {option('client', 'a client')}
      {option('internalUser', 'staff')}
    </fieldset>
  );
}

/** A form's action: busy while it runs, its error (cleared when it runs again). */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const run = useCallback(async (action: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await action();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, run };
}

/** A form's field as text (FormData gives File for file inputs, which these pages have none of). */
export const text = (form: HTMLFormElement, name: string) => String(new FormData(form).get(name) ?? '');

/** Copies `text`; where the browser does not allow it, `select` selects it on the page for Ctrl+C. */
export function CopyButton({ text, what, select }: { text: string; what: string; select: () => void }) {
  const [said, setSaid] = useState('');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setSaid(`${what}: copied.`);
    } catch {
      select();
      setSaid('Copying is not allowed here: the text is selected, press Ctrl+C (⌘C).');
    }
  };
  return (
    <>
      <button type="button" class="secondary" onClick={copy} aria-label={`Copy the ${what.toLowerCase()}`}>
        Copy
      </button>
      <span class="visually-hidden" role="status">
        {said}
      </span>
    </>
  );
}

/** Text to copy, read-only and shown whole (it wraps), with a Copy button. */
export function CopyField({ label, value, copyValue, hint }: { label: string; value: string; copyValue?: string; hint?: string }) {
  const field = useRef<HTMLTextAreaElement>(null);
  return (
    <Field label={label} name="" hint={hint}>
      {(props) => (
        <div class="copy-row">
          <textarea
            {...props}
            ref={field}
            class="mono"
            readOnly
            rows={2}
            spellcheck={false}
            value={value}
            onFocus={(e) => e.currentTarget.select()}
          />
          <CopyButton text={copyValue ?? value} what={label} select={() => field.current?.select()} />
        </div>
      )}
    </Field>
  );
}
