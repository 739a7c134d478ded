import type { FunctionComponent } from 'preact';
import { EnrolMfaPage } from './pages/enrol-mfa.js';
import { HomePage } from './pages/home.js';
import { InvitePage } from './pages/invite.js';
import { MagicLinkPage } from './pages/magic-link.js';
import { NotFoundPage } from './pages/not-found.js';
import { ResetPasswordPage } from './pages/reset-password.js';
import { SignInPage } from './pages/sign-in.js';
import { TotpPage } from './pages/totp.js';
import { Link, usePath } from './router.js';

/** Every page, by its path after /portal/{workspaceId} (`/` is the signed-in person's own page). */
const PAGES: Record<string, FunctionComponent> = {
  '/': HomePage,
  '/sign-in': SignInPage,
  '/magic-link': MagicLinkPage,
  '/totp': TotpPage,
  '/invite': InvitePage,
  '/reset-password': ResetPasswordPage,
  '/enrol-mfa': EnrolMfaPage,
};

export function App() {
  const { path, round } = usePath();
  const Page = Object.hasOwn(PAGES, path) ? PAGES[path] : NotFoundPage;
  return (
    <>
      <header class="topbar">
        <Link href="/" class="brand">
          Portal
        </Link>
      </header>
      <main id="main">
        {/* Keyed by the navigation: every navigation opens its page afresh (and focuses its heading). */}
        <Page key={round} />
      </main>
    </>
  );
}
