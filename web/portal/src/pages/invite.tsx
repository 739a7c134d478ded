import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { Link, takeLinkToken } from '../router.js';
import { ErrorMessage, Field, PASSWORD_MAX, PASSWORD_MIN, PageHeading, continueSignIn, refused, text, useAction } from '../ui.js';

/** An invite's link lands here: the client chooses a password (or not: links by e-mail then sign them in) and is in. */
export function InvitePage() {
  const [token] = useState(takeLinkToken);
  const action = useAction();
  const accept = (password?: string) => void action.run(async () => continueSignIn(await api.acceptInvite({ token, password })));
  const submit = (event: Event) => {
    event.preventDefault();
    accept(text(event.currentTarget as HTMLFormElement, 'password'));
  };
  if (!token) {
    return (
      <>
        <PageHeading title="Accept your invitation" />
        <p>
          This link is incomplete: open the whole link from your invitation e-mail. Already accepted it?{' '}
          <Link href="/sign-in">Sign in</Link>.
        </p>
      </>
    );
  }
  return (
    <>
      <PageHeading title="Accept your invitation" />
      <ErrorMessage focus error={action.error}>
        {refused(action.error) ? (
          <p>
            An invitation works once, for 7 days; ask whoever invited you to send it again, or <Link href="/sign-in">sign in</Link> if you
            already accepted it.
          </p>
        ) : null}
      </ErrorMessage>
      <p>Welcome! Choose a password to sign in with, or continue without one: you then sign in with links we e-mail you.</p>
      <form class="stack" onSubmit={submit}>
        <Field label="Choose a password" name="password" hint={`At least ${PASSWORD_MIN} characters.`} error={action.error}>
          {(props) => (
            <input {...props} type="password" autocomplete="new-password" required minLength={PASSWORD_MIN} maxLength={PASSWORD_MAX} />
          )}
        </Field>
        <div class="actions">
          <button type="submit" disabled={action.busy}>
            Set the password and continue
          </button>
          <button type="button" class="secondary" disabled={action.busy} onClick={() => accept()}>
            Continue without a password
          </button>
        </div>
      </form>
    </>
  );
}
