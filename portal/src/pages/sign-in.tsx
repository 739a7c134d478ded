import { useEffect, useState } from 'preact/hooks';
import { type Provider, type UserType, api, providerStartUrl } from '../api.js';
import { Link } from '../router.js';
import { ErrorAlert, Field, PageHeading, Status, UserTypeChoice, continueSignIn, text, useAction } from '../ui.js';

/**
 * Signing in: with a password, with a link by e-mail, or with an OpenID provider (a plain navigation to the
 * server, which redirects to the provider and back here with `?error=` when it failed).
 */
export function SignInPage() {
  const [userType, setUserType] = useState<UserType>('client');
  const [providers, setProviders] = useState<Provider[]>([]);
  const queryError = signInError(new URLSearchParams(window.location.search).get('error'));
  const password = useAction();
  const link = useAction();
  const [linkSent, setLinkSent] = useState<string | null>(null);

  useEffect(() => {
    let current = true;
    void api.providers().then((list) => current && setProviders(list));
    return () => {
      current = false;
    };
  }, []);

  const signIn = (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    void password.run(async () => {
      const session = await api.signInWithPassword({ email: text(form, 'email'), password: text(form, 'password'), userType });
      continueSignIn(session);
    });
  };
  const sendLink = (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    setLinkSent(null);
    void link.run(async () => {
      const answer = await api.requestLink({ email: text(form, 'email'), userType });
      setLinkSent(answer.message);
    });
  };

  return (
    <>
      <PageHeading title="Sign in" />
      {queryError ? (
        <div class="notice notice-error" role="alert">
          <p>{queryError}</p>
        </div>
      ) : null}
      <UserTypeChoice value={userType} onChange={setUserType} />

      <section aria-labelledby="with-password">
        <h2 id="with-password">With your password</h2>
        <ErrorAlert error={password.error} />
        <form class="stack" onSubmit={signIn}>
          <Field label="E-mail" name="email" error={password.error}>
            {(props) => <input {...props} type="email" autocomplete="username" required maxLength={320} spellcheck={false} />}
          </Field>
          <Field label="Password" name="password" error={password.error}>
            {(props) => <input {...props} type="password" autocomplete="current-password" required maxLength={128} />}
          </Field>
          <div class="actions">
            <button type="submit" disabled={password.busy}>
              {password.busy ? 'Signing in…' : 'Sign in'}
            </button>
            <Link to="reset-password">Forgot password?</Link>
          </div>
        </form>
      </section>

      <section aria-labelledby="with-link">
        <h2 id="with-link">With a link by e-mail</h2>
        <ErrorAlert error={link.error} />
        <Status>{linkSent}</Status>
        <form class="stack" onSubmit={sendLink}>
          <Field label="Your e-mail" name="email" error={link.error}>
            {(props) => <input {...props} type="email" autocomplete="email" required maxLength={320} spellcheck={false} />}
          </Field>
          <div class="actions">
            <button type="submit" class="secondary" disabled={link.busy}>
              E-mail me a sign-in link
            </button>
          </div>
        </form>
      </section>

      {providers.length > 0 ? (
        <section aria-labelledby="with-provider">
          <h2 id="with-provider">With another account</h2>
          <ul class="providers">
            {providers.map((provider) => (
              <li key={provider.id}>
                <a class="button secondary" href={providerStartUrl(provider.id, userType)}>
                  Sign in with {provider.name}
                </a>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
    </>
  );
}

/** What the server's `?error=` codes mean; never the query's own text (a crafted link could put anything there). */
const SIGN_IN_ERRORS: Record<string, string> = {
  oidc_failed:
    'That sign-in did not work: nobody here signs in with that account (the provider must have verified the e-mail you were invited with), or it was cancelled.',
};
function signInError(code: string | null): string | undefined {
  if (code === null) return undefined;
  return SIGN_IN_ERRORS[code] ?? 'That sign-in did not work. Try again.';
}
