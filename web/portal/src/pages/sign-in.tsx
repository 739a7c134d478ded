import { useEffect, useState } from 'preact/hooks';
import { type Provider, type UserType, api, providerStartUrl } from '../api.js';
import { Link } from '../router.js';
import { ErrorMessage, Field, PageHeading, Status, UserTypeChoice, continueSignIn, text, useAction } from '../ui.js';

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

  // One form, one e-mail field: "Sign in" sends it with the password; "E-mail me a sign-in link" sends it alone
  // (the password then need not be filled: that button skips the browser's checks, and the e-mail's are run here).
  const [tried, setTried] = useState<'password' | 'link'>('password');
  const submit = (event: SubmitEvent) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const email = text(form, 'email');
    if ((event.submitter as HTMLButtonElement | null)?.value === 'link') {
      const field = form.elements.namedItem('email') as HTMLInputElement;
      if (!field.reportValidity()) return;
      setTried('link');
      setLinkSent(null);
      void link.run(async () => {
        const answer = await api.requestLink({ email, userType });
        setLinkSent(answer.message);
      });
      return;
    }
    setTried('password');
    void password.run(async () => {
      const session = await api.signInWithPassword({ email, password: text(form, 'password'), userType });
      continueSignIn(session);
    });
  };
  const failed = tried === 'link' ? link.error : password.error;

  return (
    <>
      <PageHeading title="Sign in" />
      {queryError ? (
        <div class="notice notice-error" role="alert">
          <p>{queryError}</p>
        </div>
      ) : null}
      <UserTypeChoice value={userType} onChange={setUserType} />

      <ErrorMessage focus error={failed} />
      <Status>{linkSent}</Status>
      <form class="stack" onSubmit={submit}>
        <Field label="E-mail" name="email" error={failed}>
          {(props) => <input {...props} type="email" autocomplete="username" required maxLength={320} spellcheck={false} />}
        </Field>
        <section aria-labelledby="with-password" class="stack">
          <h2 id="with-password">With your password</h2>
          <Field label="Password" name="password" error={password.error}>
            {(props) => <input {...props} type="password" autocomplete="current-password" required maxLength={128} />}
          </Field>
          <div class="actions">
            <button type="submit" name="with" value="password" disabled={password.busy}>
              {password.busy ? 'Signing in…' : 'Sign in'}
            </button>
            <Link href="/reset-password">Forgot password?</Link>
          </div>
        </section>
        <section aria-labelledby="with-link" class="stack">
          <h2 id="with-link">Or with a link by e-mail</h2>
          <div class="actions">
            <button type="submit" name="with" value="link" formNoValidate class="secondary" disabled={link.busy}>
              E-mail me a sign-in link
            </button>
          </div>
        </section>
      </form>

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
