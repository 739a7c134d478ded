import { api } from '../api.js';
import { Link } from '../router.js';
import { ErrorMessage, Field, PageHeading, continueSignIn, text, useAction } from '../ui.js';

/** The second step of a sign-in, for people with an authenticator app: its current code, or a recovery code. */
export function TotpPage() {
  const action = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    void action.run(async () => continueSignIn(await api.verifyCode(text(form, 'code').trim())));
  };
  return (
    <>
      <PageHeading title="Enter your sign-in code" />
      <ErrorMessage focus error={action.error} />
      <form class="stack" onSubmit={submit}>
        <Field
          label="Code"
          name="code"
          hint="The 6 digits your authenticator app shows now, or one of your recovery codes."
          error={action.error}
        >
          {(props) => (
            <input {...props} autocomplete="one-time-code" required minLength={6} maxLength={20} spellcheck={false} autocapitalize="off" />
          )}
        </Field>
        <div class="actions">
          <button type="submit" disabled={action.busy}>
            {action.busy ? 'Checking…' : 'Continue'}
          </button>
          <Link href="/sign-in">Start again</Link>
        </div>
      </form>
    </>
  );
}
