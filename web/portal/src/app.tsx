import type { FunctionComponent } from 'preact';
import { SignInFrame, SignedInFrame } from './frame.js';
import { AccountPage } from './pages/account.js';
import { EnrolMfaPage } from './pages/enrol-mfa.js';
import { HomePage } from './pages/home.js';
import { InvitePage } from './pages/invite.js';
import { MagicLinkPage } from './pages/magic-link.js';
import { NotFoundPage } from './pages/not-found.js';
import { ResetPasswordPage } from './pages/reset-password.js';
import { SignInPage } from './pages/sign-in.js';
import { TotpPage } from './pages/totp.js';
import { usePath } from './router.js';
import { SECTIONS } from './sections.js';

/** The pages of signing in, by their path after /portal/{workspaceId}: no session needed, no frame. */
const SIGN_IN_PAGES: Record<string, FunctionComponent> = {
  '/sign-in': SignInPage,
  '/magic-link': MagicLinkPage,
  '/totp': TotpPage,
  '/invite': InvitePage,
  '/reset-password': ResetPasswordPage,
  '/enrol-mfa': EnrolMfaPage,
};

/** The page of a signed-in path: home, the account, a section's (it reads the rest of the path), or not found. */
function signedInPage(path: string): FunctionComponent<{ path: string }> {
  if (path === '/') return HomePage;
  if (path === '/account') return AccountPage;
  return SECTIONS.find((section) => path === section.path || path.startsWith(`${section.path}/`))?.Page ?? NotFoundPage;
}

export function App() {
  const { path, round } = usePath();
  if (Object.hasOwn(SIGN_IN_PAGES, path)) {
    const Page = SIGN_IN_PAGES[path];
    return (
      <SignInFrame>
        {/* Keyed by the navigation: every navigation opens its page afresh (and focuses its heading). */}
        <Page key={round} />
      </SignInFrame>
    );
  }
  const Page = signedInPage(path);
  return (
    <SignedInFrame path={path} round={round}>
      <Page key={round} path={path} />
    </SignedInFrame>
  );
}
