import { useState } from 'preact/hooks';
import { type UserType, api } from '../api.js';
import { Link, takeLinkToken } from '../router.js';
import {
  Done,
  ErrorMessage,
  Field,
  PASSWORD_MAX,
  PASSWORD_MIN,
  PageHeading,
  UserTypeChoice,
  refused,
  text,
  useAction,
  Submit,
} from '../ui.js';

/** Without a token: ask for a reset link by e-mail. With one (the link's fragment): choose the new password. */
export function ResetPasswordPage() {
  const [token] = useState(takeLinkToken);
  return token ? <NewPassword token={token} /> : <RequestReset />;
}

function RequestReset() {
  const [userType, setUserType] = useState<UserType>('client');
  const [sent, setSent] = useState<string | null>(null);
  const action = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    void action.run(async () => setSent((await api.requestPasswordReset({ email: text(form, 'email'), userType })).message));
  };
  return (
    <>
      <PageHeading title="Reset your password" />
      {sent ? (
        <Done>
          <p>{sent}</p>
          <p>
            The link works once, for 30 minutes. <Link href="/sign-in">Back to sign-in</Link>
          </p>
        </Done>
      ) : (
        <>
          <p>We e-mail you a link to choose a new password.</p>
          <ErrorMessage focus error={action.error} />
          <form class="stack" onSubmit={submit}>
            <UserTypeChoice value={userType} onChange={setUserType} />
            <Field label="E-mail" name="email" error={action.error}>
              {(props) => <input {...props} type="email" autocomplete="username" required maxLength={320} spellcheck={false} />}
            </Field>
            <div class="actions">
              <button type="submit" disabled={action.busy}>
                E-mail me a reset link
              </button>
              <Link href="/sign-in">Back to sign-in</Link>
            </div>
          </form>
        </>
      )}
    </>
  );
}

function NewPassword({ token }: { token: string }) {
  const [done, setDone] = useState(false);
  const action = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    void action.run(async () => {
      await api.completePasswordReset({ token, password: text(form, 'password') });
      setDone(true);
    });
  };
  return (
    <>
      <PageHeading title="Choose a new password" />
      {done ? (
        <Done>
          <p>Your password is changed, and you are signed out everywhere.</p>
          <p>
            <Link href="/sign-in">Sign in with the new password</Link>
          </p>
        </Done>
      ) : (
        <>
          <ErrorMessage focus error={action.error}>
            {refused(action.error) ? (
              <p>
                A reset link works once, for 30 minutes. <Link href="/reset-password">Ask for a new one</Link>.
              </p>
            ) : null}
          </ErrorMessage>
          <form class="stack" onSubmit={submit}>
            <Field label="New password" name="password" hint={`At least ${PASSWORD_MIN} characters.`} error={action.error}>
              {(props) => (
                <input {...props} type="password" autocomplete="new-password" required minLength={PASSWORD_MIN} maxLength={PASSWORD_MAX} />
              )}
            </Field>
            <Submit label="Set the new password" busy={action.busy} />
          </form>
        </>
      )}
    </>
  );
}
