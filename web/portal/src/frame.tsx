import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiError, type PortalWorkspace, api } from './api.js';
import { Link, navigate } from './router.js';
import { SECTIONS, type Waiting } from './sections.js';
import { FramedContext, type SignedIn } from './signed-in.js';
import { ErrorMessage, PageHeading, continueSignIn, signInThenReturn, useAction } from './ui.js';

/**
 * The frame of every page a signed-in person sees: the workspace's name and colour, the sections with what waits
 * there, the account and sign-out. Not signed in: the sign-in page; half signed in (a TOTP step due): that step.
 * `round` (the navigation's) refreshes what waits.
 */
export function SignedInFrame({ path, round, children }: { path: string; round: number; children: ComponentChildren }) {
  const [signedIn, setSignedIn] = useState<SignedIn | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    let current = true;
    Promise.all([api.session(), api.workspace()]).then(
      ([session, workspace]) => {
        if (!current) return;
        if (session.stage !== 'active') continueSignIn(session);
        else setSignedIn({ session, person: session.user, workspace });
      },
      (failure) => {
        if (!current) return;
        if (failure instanceof ApiError && failure.status === 401) signInThenReturn(path + window.location.search);
        else setError(failure);
      },
    );
    return () => {
      current = false;
    };
  }, []);

  if (!signedIn) return <Loading error={error} />;
  return (
    <Frame signedIn={signedIn} path={path} round={round}>
      {children}
    </Frame>
  );
}

function Loading({ error }: { error?: unknown }) {
  return (
    <main id="main">
      <PageHeading title={error ? 'Something went wrong' : 'Loading'} />
      {error ? <ErrorMessage focus error={error} /> : <p aria-live="polite">Loading your portal…</p>}
    </main>
  );
}

/**
 * How long the first page waits for the sections' counts (ms). Their badges widen the navigation's items: arriving
 * after the page is shown, they could wrap it onto one more line and push the whole page down under the reader.
 */
const COUNTS_WAIT_MS = 1500;

function Frame({ signedIn, path, round, children }: { signedIn: SignedIn; path: string; round: number; children: ComponentChildren }) {
  const waiting = useWaiting(signedIn, round);
  const [waitedLongEnough, setWaitedLongEnough] = useState(false);
  useEffect(() => {
    const timer = setTimeout(() => setWaitedLongEnough(true), COUNTS_WAIT_MS);
    return () => clearTimeout(timer);
  }, []);
  if (waiting === null && !waitedLongEnough) return <Loading />;
  return (
    <FramedContext.Provider value={{ ...signedIn, waiting }}>
      <div class="frame signed-in" style={brandStyle(signedIn.workspace.brandColor)}>
        <header class="topbar">
          <Link href="/" class="brand" current={path === '/'}>
            <Brand workspace={signedIn.workspace} />
          </Link>
          <SignOut />
        </header>
        <Sections path={path} waiting={waiting ?? []} />
        <main id="main">{children}</main>
      </div>
    </FramedContext.Provider>
  );
}

/** The sign-in pages' bar: the workspace's name and colour once known (the page works without them). */
export function SignInFrame({ children }: { children: ComponentChildren }) {
  const [workspace, setWorkspace] = useState<PortalWorkspace | null>(null);
  useEffect(() => {
    api.workspace().then(setWorkspace, () => {});
  }, []);
  return (
    <div class="frame" style={brandStyle(workspace?.brandColor)}>
      <header class="topbar">
        <Link href="/" class="brand">
          {workspace ? <Brand workspace={workspace} /> : 'Portal'}
        </Link>
      </header>
      <main id="main">{children}</main>
    </div>
  );
}

/**
 * The workspace's logo, if it has one, and its name: the logo is decorative (the name beside it says whose portal this
 * is), its box kept by its width and height before it loads.
 */
function Brand({ workspace }: { workspace: PortalWorkspace }) {
  return (
    <>
      {workspace.logoUrl ? (
        <img class="brand-logo" src={workspace.logoUrl} alt="" width={workspace.logoWidth} height={workspace.logoHeight} />
      ) : null}
      <span>{workspace.name}</span>
    </>
  );
}

/** The navigation: each section, with how many things wait there for the person (its badge). */
function Sections({ path, waiting }: { path: string; waiting: Waiting[] }) {
  return (
    <nav aria-label="Portal" class="sections">
      <ul>
        {SECTIONS.map((section) => {
          const count = waiting.find((w) => w.section === section.path)?.count ?? 0;
          return (
            <li key={section.path}>
              <Link href={section.path} current={path === section.path || path.startsWith(`${section.path}/`)}>
                {section.label}
                {count > 0 ? (
                  <>
                    <span class="count"> ({count})</span>
                    <span class="visually-hidden"> waiting</span>
                  </>
                ) : null}
              </Link>
            </li>
          );
        })}
        <li>
          <Link href="/account" current={path === '/account'}>
            Account
          </Link>
        </li>
      </ul>
    </nav>
  );
}

/**
 * What waits for the signed-in person in each section that counts something (open invoices, tasks to do…),
 * asked again at every navigation; a section whose count fails is left out rather than failing the frame.
 */
function useWaiting(signedIn: SignedIn, round: number): Waiting[] | null {
  const [waiting, setWaiting] = useState<Waiting[] | null>(null);
  useEffect(() => {
    let current = true;
    const counted = SECTIONS.flatMap((section) => (section.waiting ? [section.waiting(signedIn).catch(() => null)] : []));
    void Promise.all(counted).then((all) => {
      if (current) setWaiting(all.filter((w): w is Waiting => w !== null));
    });
    return () => {
      current = false;
    };
  }, [round]);
  return waiting;
}

function SignOut() {
  const action = useAction();
  const signOut = () =>
    void action.run(async () => {
      await api.signOut();
      navigate('/sign-in', { replace: true });
    });
  return (
    <div class="sign-out">
      <ErrorMessage error={action.error} />
      <button type="button" class="secondary" onClick={signOut} disabled={action.busy}>
        Sign out
      </button>
    </div>
  );
}

/** The workspace's colour for links and buttons, darkened until white text on it reads at WCAG AA (4.5:1). */
function brandStyle(color: string | undefined): Record<string, string> {
  if (!color || !/^#[0-9a-f]{6}$/i.test(color)) return {};
  let [r, g, b] = [1, 3, 5].map((at) => Number.parseInt(color.slice(at, at + 2), 16));
  for (let step = 0; step < 20 && contrastWithWhite(r, g, b) < 4.5; step++) [r, g, b] = [r, g, b].map((c) => Math.floor(c * 0.9));
  const hex = (c: number) => c.toString(16).padStart(2, '0');
  const dark = [r, g, b].map((c) => Math.floor(c * 0.7));
  return { '--primary': `#${hex(r)}${hex(g)}${hex(b)}`, '--primary-dark': `#${dark.map(hex).join('')}` };
}

function contrastWithWhite(r: number, g: number, b: number): number {
  const linear = (c: number) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  const luminance = 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
  return 1.05 / (luminance + 0.05);
}
