import { useState } from 'preact/hooks';
import { ApiError, type Session, session } from '../api.js';
import { ErrorMessage, Field, PageHeading } from '../ui.js';

/**
 * The admin token is read from the field at submit, sent once to POST /admin/session (which answers
 * with the HttpOnly cookie), and the field cleared: it is kept in no variable, no storage.
 */
export function SignInPage({ reason, onSignedIn }: { reason?: string; onSignedIn: (session: Session) => void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const submit = async (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const field = form.elements.namedItem('token') as HTMLInputElement;
    setBusy(true);
    setError(null);
    try {
      await session.signIn(field.value);
      form.reset();
      const current = await session.current();
      if (!current) throw new Error('Signed in, but the browser did not keep the session cookie (are cookies blocked?).');
      onSignedIn(current);
    } catch (e) {
      form.reset();
      setError(e instanceof ApiError && e.status === 401 ? new Error('That admin token is not right.') : e);
      field.focus();
    } finally {
      setBusy(false);
    }
  };
  return (
    <main id="main" class="narrow sign-in">
      <PageHeading title="Sign in to the Portal console" />
      <p>Use the admin token of this deployment (the server's PORTAL_ADMIN_TOKEN).</p>
      {reason ? (
        <p class="notice" role="status">
          {reason}
        </p>
      ) : null}
      <ErrorMessage error={error} />
      <form onSubmit={submit} class="stack">
        <Field label="Admin token">
          {(props) => <input {...props} name="token" type="password" autocomplete="off" required spellcheck={false} />}
        </Field>
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
