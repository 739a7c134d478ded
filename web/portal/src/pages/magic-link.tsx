import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { Link, takeLinkToken } from '../router.js';
import { ErrorMessage, PageHeading, continueSignIn, refused, useAction } from '../ui.js';

/**
 * An e-mailed sign-in link lands here. It signs in only when the person presses the button: mail scanners open
 * links to look at them, and would otherwise spend the link (it works once).
 */
export function MagicLinkPage() {
  const [token] = useState(takeLinkToken);
  const action = useAction();
  const redeem = () => void action.run(async () => continueSignIn(await api.redeemLink(token)));
  return (
    <>
      <PageHeading title="Sign in with your link" />
      {token ? (
        <>
          <ErrorMessage focus error={action.error}>
            {refused(action.error) ? (
              <p>
                A link works once, for 15 minutes. <Link href="/sign-in">Ask for a new one</Link>.
              </p>
            ) : null}
          </ErrorMessage>
          <p>Press the button to sign in to the portal.</p>
          <button type="button" onClick={redeem} disabled={action.busy}>
            {action.busy ? 'Signing in…' : 'Sign in'}
          </button>
        </>
      ) : (
        <p>
          This link is incomplete: open the whole link from your e-mail, or <Link href="/sign-in">ask for a new one</Link>.
        </p>
      )}
    </>
  );
}
