import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { type Session, onSessionLost, session } from './api.js';
import { AuditLogPage } from './pages/audit-log.js';
import { BrandingPage } from './pages/branding.js';
import { CsvPage } from './pages/csv.js';
import { InstallsPage } from './pages/installs.js';
import { KeysPage } from './pages/keys.js';
import { NotFoundPage } from './pages/not-found.js';
import { NotificationSettingsPage } from './pages/notification-settings.js';
import { OutboxPage } from './pages/outbox.js';
import { QaPage } from './pages/qa.js';
import { SignInPage } from './pages/sign-in.js';
import { WebhooksPage } from './pages/webhooks.js';
import { WorkspacePage } from './pages/workspace.js';
import { WorkspacesPage } from './pages/workspaces.js';
import { Link, match, navigate, usePath } from './router.js';
import { ErrorMessage, formatDate, messageOf } from './ui.js';
import { WorkspaceLayout } from './workspace-layout.js';

type SessionState = { kind: 'checking' } | { kind: 'signedOut'; reason?: string } | { kind: 'signedIn'; session: Session };

/** Pages of one workspace: path under /workspaces/:workspaceId, the component. */
const WORKSPACE_PAGES: [string, (props: { workspaceId: string; params: Record<string, string> }) => ComponentChildren][] = [
  ['', WorkspacePage],
  ['/keys', KeysPage],
  ['/installs', InstallsPage],
  ['/installs/:installId/notification-settings', NotificationSettingsPage],
  ['/audit-log', AuditLogPage],
  ['/webhooks', WebhooksPage],
  ['/outbox', OutboxPage],
  ['/csv', CsvPage],
  ['/qa', QaPage],
  ['/branding', BrandingPage],
];

export function App() {
  const { path } = usePath();
  const [state, setState] = useState<SessionState>({ kind: 'checking' });
  const [checkError, setCheckError] = useState<unknown>(null);

  useEffect(() => {
    session.current().then(
      (current) => setState(current ? { kind: 'signedIn', session: current } : { kind: 'signedOut' }),
      (error) => setCheckError(error),
    );
    return onSessionLost(() => setState({ kind: 'signedOut', reason: 'Your session has ended: sign in again.' }));
  }, []);

  if (checkError) {
    return (
      <main id="main" class="narrow">
        <h1>Portal console</h1>
        <ErrorMessage error={checkError} />
        <p>The server did not answer. Reload the page to try again.</p>
      </main>
    );
  }
  if (state.kind === 'checking') {
    return (
      <main id="main" class="narrow" aria-busy="true">
        <p>Loading…</p>
      </main>
    );
  }
  if (state.kind === 'signedOut') {
    return (
      <SignInPage
        reason={state.reason}
        onSignedIn={(current) => {
          setState({ kind: 'signedIn', session: current });
          if (path === '/sign-in') navigate('/', { replace: true });
        }}
      />
    );
  }
  return (
    <SignedIn session={state.session} path={path} onSignedOut={() => setState({ kind: 'signedOut', reason: 'You have signed out.' })} />
  );
}

function SignedIn({ session: current, path, onSignedOut }: { session: Session; path: string; onSignedOut: () => void }) {
  const [error, setError] = useState<unknown>(null);
  const signOut = async () => {
    try {
      await session.signOut();
      navigate('/', { replace: true });
      onSignedOut();
    } catch (e) {
      setError(e);
    }
  };
  return (
    <>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="topbar">
        <Link href="/" class="brand">
          Portal console
        </Link>
        <span class="session-info">{current.expiresAt ? `Signed in until ${formatDate(current.expiresAt)}` : 'Signed in'}</span>
        <button type="button" class="secondary" onClick={signOut}>
          Sign out
        </button>
      </header>
      {error ? (
        <p class="notice notice-error" role="alert">
          Signing out failed: {messageOf(error)}
        </p>
      ) : null}
      <Routes path={path} />
    </>
  );
}

function Routes({ path }: { path: string }) {
  if (path === '/' || path === '/workspaces' || path === '/sign-in') {
    return (
      <main id="main">
        <WorkspacesPage />
      </main>
    );
  }
  const workspace = /^\/workspaces\/([^/]+)(\/.*)?$/.exec(path);
  if (workspace) {
    let workspaceId: string;
    try {
      workspaceId = decodeURIComponent(workspace[1]);
    } catch {
      return <NotFound />;
    }
    const rest = workspace[2] ?? '';
    for (const [pattern, Page] of WORKSPACE_PAGES) {
      const params = match(pattern, rest);
      if (params) {
        return (
          <WorkspaceLayout workspaceId={workspaceId} path={rest}>
            <Page workspaceId={workspaceId} params={params} />
          </WorkspaceLayout>
        );
      }
    }
  }
  return <NotFound />;
}

function NotFound() {
  return (
    <main id="main">
      <NotFoundPage />
    </main>
  );
}
