import { useEffect, useState } from 'preact/hooks';
import { ApiError, type SignInSession, api } from '../api.js';
import { navigate } from '../router.js';
import {
  ErrorMessage,
  Field,
  PASSWORD_MAX,
  PASSWORD_MIN,
  PageHeading,
  Status,
  continueSignIn,
  text,
  useAction,
  Submit,
  AppCodeField,
} from '../ui.js';

/** The signed-in person's account: who they are, their password and their two-step sign-in. */
export function AccountPage() {
  const [session, setSession] = useState<SignInSession | null>(null);
  const [loadError, setLoadError] = useState<unknown>(null);
  const [round, setRound] = useState(0);

  useEffect(() => {
    let current = true;
    api.session().then(
      (answer) => {
        if (!current) return;
        // Half signed in (the TOTP step is due): finish that first.
        if (answer.stage !== 'active') continueSignIn(answer);
        else setSession(answer);
      },
      (error) => {
        if (!current) return;
        if (error instanceof ApiError && error.status === 401) navigate('/sign-in', { replace: true });
        else setLoadError(error);
      },
    );
    return () => {
      current = false;
    };
  }, [round]);

  if (!session) {
    return (
      <>
        <PageHeading title="Your account" />
        {loadError ? <ErrorMessage focus error={loadError} /> : <p aria-live="polite">Loading…</p>}
      </>
    );
  }
  const { user } = session;
  return (
    <>
      <PageHeading title="Your account" />
      <SignedInAs session={session} />
      <ChangePassword email={user.email} />
      <TwoStep session={session} onChange={() => setRound((n) => n + 1)} />
    </>
  );
}

function SignedInAs({ session }: { session: SignInSession }) {
  const { user } = session;
  return (
    <section aria-labelledby="who" class="panel">
      <h2 id="who">Signed in</h2>
      <p>
        You are signed in as <strong>{`${user.givenName} ${user.familyName}`.trim() || user.email}</strong> ({user.email}),{' '}
        {user.type === 'client' ? 'a client' : 'staff'}.
      </p>
    </section>
  );
}

function ChangePassword({ email }: { email: string }) {
  const action = useAction();
  const [done, setDone] = useState(false);
  const submit = (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    setDone(false);
    void action.run(async () => {
      const currentPassword = text(form, 'currentPassword');
      await api.changePassword({ newPassword: text(form, 'newPassword'), ...(currentPassword ? { currentPassword } : {}) });
      form.reset();
      setDone(true);
    });
  };
  return (
    <section aria-labelledby="password" class="panel">
      <h2 id="password">Password</h2>
      <ErrorMessage focus error={action.error} />
      <Status>{done ? 'Your password is changed. Your other sessions have ended.' : null}</Status>
      <form class="stack" onSubmit={submit}>
        {/* For password managers: whose password this is. */}
        <input type="text" name="username" autocomplete="username" value={email} readOnly hidden />
        <Field label="Current password" name="currentPassword" hint="Leave it empty if you have never set one." error={action.error}>
          {(props) => <input {...props} type="password" autocomplete="current-password" maxLength={PASSWORD_MAX} />}
        </Field>
        <Field label="New password" name="newPassword" hint={`At least ${PASSWORD_MIN} characters.`} error={action.error}>
          {(props) => (
            <input {...props} type="password" autocomplete="new-password" required minLength={PASSWORD_MIN} maxLength={PASSWORD_MAX} />
          )}
        </Field>
        <Submit label="Change the password" busy={action.busy} />
      </form>
    </section>
  );
}

function TwoStep({ session, onChange }: { session: SignInSession; onChange: () => void }) {
  const action = useAction();
  const [turnedOff, setTurnedOff] = useState(false);
  const submit = (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    void action.run(async () => {
      await api.disableTotp(text(form, 'code').replace(/\s+/g, ''));
      setTurnedOff(true);
      onChange();
    });
  };
  return (
    <section aria-labelledby="two-step" class="panel">
      <h2 id="two-step">Two-step sign-in</h2>
      <Status>{turnedOff ? 'Two-step sign-in is off.' : null}</Status>
      {session.mfaEnabled ? (
        <>
          <p>On: signing in also takes a code from your authenticator app.</p>
          <ErrorMessage focus error={action.error} />
          <form class="stack" onSubmit={submit}>
            <AppCodeField hint="To turn it off, the 6 digits your app shows now." error={action.error} />
            <Submit label="Turn off" kind="danger" busy={action.busy} />
          </form>
        </>
      ) : (
        <>
          <p>Off: your password (or a link by e-mail) alone signs you in.</p>
          <button type="button" onClick={() => navigate('/enrol-mfa')}>
            Turn on two-step sign-in
          </button>
        </>
      )}
    </section>
  );
}
