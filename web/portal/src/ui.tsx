import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef, useState } from 'preact/hooks';
import { Field } from '../../kit/ui.js';
import { ApiError, type SignInSession, type UserType } from './api.js';
import { navigate } from './router.js';

// The portal's own UI; the rest is the kit's (web/kit/ui.tsx).
export { ErrorMessage, Field, LoadFailed, Loading, PageHeading, Status, Submit, text, useAction } from '../../kit/ui.js';

/** The shortest password the server takes (ASVS: 12, no composition rules). */
export const PASSWORD_MIN = 12;
export const PASSWORD_MAX = 128;

/** Where a page sent to sign in first (an e-mail's link opened signed out) is kept for after it, in this tab only. */
const AFTER_SIGN_IN = 'portal:after-sign-in';

/** Sends the person to sign in, then back to `path` (an in-app path with its query). */
export function signInThenReturn(path: string) {
  if (path !== '/') sessionStorage.setItem(AFTER_SIGN_IN, path);
  navigate('/sign-in', { replace: true });
}

/** Where a sign-in answer leads: the page that sent the person to sign in (else home) when signed in, else the step still due. */
export function continueSignIn(session: SignInSession) {
  if (session.stage === 'mfaRequired') navigate('/totp', { replace: true });
  else if (session.stage === 'mfaEnrolmentRequired') navigate('/enrol-mfa', { replace: true });
  else {
    const back = sessionStorage.getItem(AFTER_SIGN_IN);
    sessionStorage.removeItem(AFTER_SIGN_IN);
    // In-app paths only: navigate() puts the portal's base before it, so nothing leads elsewhere.
    navigate(back?.startsWith('/') ? back : '/', { replace: true });
  }
}

/** The API refused an e-mailed link's token (used, expired, replaced) or the session: 401. */
export const refused = (error: unknown) => error instanceof ApiError && error.status === 401;

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

/** The 6 digits an authenticator app shows now (spaces allowed, as apps group them: 123 456). */
export function AppCodeField({ hint, error }: { hint: string; error: unknown }) {
  return (
    <Field label="Code from the app" name="code" hint={hint} error={error}>
      {(props) => (
        <input
          {...props}
          autocomplete="one-time-code"
          inputMode="numeric"
          pattern="[0-9 ]{6,7}"
          required
          maxLength={7}
          spellcheck={false}
        />
      )}
    </Field>
  );
}
