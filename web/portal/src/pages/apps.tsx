import type { Item } from '../../../kit/api.js';
import { match } from '../../../kit/router.js';
import { type SignedIn, useSignedIn } from '../signed-in.js';
import { ApiError, api, ok, v1 } from '../api.js';
import { Link } from '../router.js';
import { useLoad } from '../../../kit/ui.js';
import { ErrorMessage, LoadFailed, Loading, PageHeading } from '../ui.js';

// The Apps section: the apps installed in the workspace that the person sees through the API. An app with a page of
// its own opens here, in a sandboxed frame given the person's session token (`?token=`, as the hosted portal hands
// it); a link, or a manual app's links, open in a new tab.

type Install = Item<'/v1/installs'>;
type Connection = Item<'/v1/installs/{installId}/connections'>;

export function AppsPage({ path }: { path: string }) {
  const one = match('/apps/:installId', path);
  return one ? <AppPage installId={one.installId} /> : <AppList />;
}

/** Installs whose page opens in the portal's frame. */
const FRAMED = new Set<Install['type']>(['custom', 'marketplace']);

/** Every install the person sees, in sidebar order (a workspace has few: pages of 100). */
async function visibleInstalls(signedIn: SignedIn): Promise<Install[]> {
  const all: Install[] = [];
  let nextToken: string | undefined;
  for (let page = 0; page < 10; page++) {
    const answer = await ok(v1.GET('/v1/installs', { params: { query: { limit: 100, ...(nextToken ? { nextToken } : {}) } } }));
    all.push(...answer.data);
    nextToken = answer.nextToken;
    if (!nextToken) break;
  }
  // The core modules are the portal's own sections; staff do not see what is hidden from their sidebar.
  return all.filter((install) => install.type !== 'core' && !(signedIn.person.type === 'internalUser' && install.iuSidebarHidden));
}

interface Listed {
  install: Install;
  /** a manual app's links the person sees (its embeds are HTML the portal does not run) */
  links: Connection[];
}

function AppList() {
  const signedIn = useSignedIn();
  const list = useLoad(async (): Promise<Listed[]> => {
    const installs = await visibleInstalls(signedIn);
    return Promise.all(
      installs.map(async (install) => {
        if (install.type !== 'manual') return { install, links: [] };
        const connections = await ok(
          v1.GET('/v1/installs/{installId}/connections', {
            params: { path: { installId: install.id }, query: { limit: 100 } },
          }),
        );
        return { install, links: connections.data.filter((c) => c.type === 'link') };
      }),
    );
  }, []);
  // What the person can open: framed apps, links, manual apps' links; the rest (embeds, apps without a page) is left out.
  const shown = (list.data ?? []).filter(({ install, links }) =>
    install.type === 'manual' ? links.length > 0 : Boolean(install.embedLink) && (FRAMED.has(install.type) || install.type === 'link'),
  );
  return (
    <>
      <PageHeading title="Apps" context={signedIn.workspace.name} />
      {list.loading && !list.data ? (
        <Loading>Loading the apps…</Loading>
      ) : list.error ? (
        <LoadFailed error={list.error} retry={list.reload} />
      ) : null}
      {list.data && shown.length === 0 ? <p class="empty">No apps are here for you yet.</p> : null}
      {shown.length > 0 ? (
        <ul class="apps">
          {shown.map(({ install, links }) => (
            <li key={install.id}>
              <AppEntry install={install} links={links} />
            </li>
          ))}
        </ul>
      ) : null}
    </>
  );
}

function AppEntry({ install, links }: Listed) {
  if (install.type === 'manual') {
    return (
      <>
        <span class="app-name">{install.displayName}</span>
        <ul>
          {links.map((link) => (
            <li key={link.id}>
              <OutLink href={link.content}>{hostOf(link.content)}</OutLink>
            </li>
          ))}
        </ul>
      </>
    );
  }
  if (install.type === 'link') return <OutLink href={install.embedLink ?? ''}>{install.displayName}</OutLink>;
  return (
    <>
      <Link href={`/apps/${encodeURIComponent(install.id)}`}>{install.displayName}</Link>
      {install.status === 'draft' ? <span class="hint"> (a draft: clients do not see it yet)</span> : null}
    </>
  );
}

function OutLink({ href, children }: { href: string; children: string }) {
  return (
    <a href={href} target="_blank" rel="noopener noreferrer">
      {children}
      <span class="visually-hidden"> (opens in a new tab)</span>
      <span aria-hidden="true"> ↗</span>
    </a>
  );
}

const hostOf = (url: string) => {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
};

/** The app's page with the token, and its frame's sandbox: scripts and forms; its own origin's storage only when that is not the portal's. */
function framing(install: Install, token: string): { src: string; sandbox: string } {
  const url = new URL(install.embedLink ?? '', window.location.href);
  url.searchParams.set('token', token);
  // A page of the portal's own origin with allow-same-origin could reach out of its sandbox: it gets an opaque origin.
  const sameOrigin = url.origin === window.location.origin;
  return { src: url.href, sandbox: sameOrigin ? 'allow-scripts allow-forms' : 'allow-scripts allow-forms allow-same-origin' };
}

function AppPage({ installId }: { installId: string }) {
  const signedIn = useSignedIn();
  const opened = useLoad(async () => {
    const install = await ok(v1.GET('/v1/installs/{installId}', { params: { path: { installId } } }));
    if (!FRAMED.has(install.type) || !install.embedLink) return { install, frame: null };
    if (install.status === 'draft') return { install, frame: null };
    const session = await api.openApp(install.id);
    return { install, frame: framing(install, session.token) };
  }, [installId]);

  if (!opened.data) {
    const failed = opened.error && !opened.loading;
    const missing = failed && opened.error instanceof ApiError && opened.error.status === 404;
    return (
      <>
        <PageHeading title={failed ? (missing ? 'App not found' : 'The app could not be opened') : 'Opening the app'} />
        {missing ? (
          <ErrorMessage error="This app is not here, or not for you.">
            <p>
              <Link href="/apps">All apps</Link>
            </p>
          </ErrorMessage>
        ) : failed ? (
          <LoadFailed error={opened.error} retry={opened.reload}>
            <p>
              <Link href="/apps">All apps</Link>
            </p>
          </LoadFailed>
        ) : (
          <Loading>Opening the app…</Loading>
        )}
      </>
    );
  }
  const { install, frame } = opened.data;
  const person = `${signedIn.person.givenName} ${signedIn.person.familyName}`.trim() || signedIn.person.email;
  return (
    <>
      <p class="back">
        <Link href="/apps">All apps</Link>
      </p>
      <PageHeading title={install.displayName} context="Apps" />
      {frame ? (
        <>
          <p class="hint">This app works for you here, as {person}.</p>
          <iframe class="app-frame" title={install.displayName} src={frame.src} sandbox={frame.sandbox} referrerpolicy="no-referrer" />
        </>
      ) : (
        <p class="notice">
          {install.status === 'draft'
            ? 'This app is a draft: it opens here once it is published.'
            : 'This app has no page to open in the portal.'}
        </p>
      )}
    </>
  );
}
