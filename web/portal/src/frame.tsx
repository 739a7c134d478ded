import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiError, type PortalWorkspace, api, ok, v1 } from './api.js';
import { Link, navigate } from './router.js';
import { type Section, type Waiting, sectionsFor } from './sections.js';
import { FramedContext, type SignedIn, type StaffAccess } from './signed-in.js';
import { ErrorMessage, LoadFailed, Loading, PageHeading, continueSignIn, signInThenReturn, useAction } from './ui.js';

/**
 * The frame of every page a signed-in person sees: the workspace's name and colour, the sections with what waits
 * there, the account and sign-out. Not signed in: the sign-in page; half signed in (a TOTP step due): that step.
 * `round` (the navigation's) refreshes what waits.
 */
export function SignedInFrame({ path, round, children }: { path: string; round: number; children: ComponentChildren }) {
  const [signedIn, setSignedIn] = useState<SignedIn | null>(null);
  const [error, setError] = useState<unknown>(null);
  // Asked again by Try again, after a failure.
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    let current = true;
    setError(null);
    Promise.all([api.session(), api.workspace()])
      .then(async ([session, workspace]) => {
        if (!current) return;
        if (session.stage !== 'active') return continueSignIn(session);
        const staff = session.user.type === 'internalUser' ? await staffAccessOf(session.user.id) : null;
        if (current) setSignedIn({ session, person: session.user, workspace, staff });
      })
      .catch((failure) => {
        if (!current) return;
        if (failure instanceof ApiError && failure.status === 401) signInThenReturn(path + window.location.search);
        else setError(failure);
      });
    return () => {
      current = false;
    };
  }, [attempt]);

  if (!signedIn) return <FrameLoading error={error} retry={() => setAttempt((n) => n + 1)} />;
  return (
    <Frame signedIn={signedIn} path={path} round={round}>
      {children}
    </Frame>
  );
}

/** What an internal user may see, as the API has it: the pages offer what the API lets it do (tasks it may change…). */
async function staffAccessOf(id: string): Promise<StaffAccess> {
  const user = await ok(v1.GET('/v1/internal-users/{id}', { params: { path: { id } } }));
  return { role: user.role, companyIds: user.isClientAccessLimited ? user.companyAccessList : null };
}

function FrameLoading({ error, retry }: { error?: unknown; retry?: () => void }) {
  return (
    <main id="main">
      <PageHeading title={error ? 'Something went wrong' : 'Loading'} />
      {error ? <LoadFailed error={error} retry={retry ?? (() => window.location.reload())} /> : <Loading>Loading your portal…</Loading>}
    </main>
  );
}

/**
 * How long the first page waits for the sections' counts (ms). Their badges widen the navigation's items: arriving
 * after the page is shown, they could wrap it onto one more line and push the whole page down under the reader.
 */
const COUNTS_WAIT_MS = 1500;

function Frame({ signedIn, path, round, children }: { signedIn: SignedIn; path: string; round: number; children: ComponentChildren }) {
  const counts = useWaiting(signedIn, round);
  const [waitedLongEnough, setWaitedLongEnough] = useState(false);
  useEffect(() => {
    const timer = setTimeout(() => setWaitedLongEnough(true), COUNTS_WAIT_MS);
    return () => clearTimeout(timer);
  }, []);
  if (counts.waiting === null && !waitedLongEnough) return <FrameLoading />;
  return (
    <FramedContext.Provider value={{ ...signedIn, ...counts }}>
      <div class="frame signed-in" style={brandStyle(signedIn.workspace.brandColor)}>
        <header class="topbar">
          <Link href="/" class="brand" current={path === '/'}>
            <Brand workspace={signedIn.workspace} />
          </Link>
          <SignOut />
        </header>
        <Sections sections={sectionsFor(signedIn)} path={path} waiting={counts.waiting ?? []} />
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
function Sections({ sections, path, waiting }: { sections: Section[]; path: string; waiting: Waiting[] }) {
  return (
    <nav aria-label="Portal" class="sections">
      <ul>
        {sections.map((section) => {
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
 * asked again at every navigation and at `recount`; a section whose count fails is left out rather than failing
 * the frame, and named in `uncounted` (the home page says so).
 */
function useWaiting(signedIn: SignedIn, round: number): { waiting: Waiting[] | null; uncounted: string[]; recount: () => void } {
  const [counted, setCounted] = useState<{ waiting: Waiting[]; uncounted: string[] } | null>(null);
  const [again, setAgain] = useState(0);
  useEffect(() => {
    let current = true;
    const counting = sectionsFor(signedIn).flatMap((section) =>
      section.waiting
        ? [
            section.waiting(signedIn).then(
              (waiting) => ({ waiting }),
              () => ({ failed: section.label }),
            ),
          ]
        : [],
    );
    void Promise.all(counting).then((all) => {
      if (!current) return;
      setCounted({
        waiting: all.flatMap((one) => ('waiting' in one ? [one.waiting] : [])),
        uncounted: all.flatMap((one) => ('failed' in one ? [one.failed] : [])),
      });
    });
    return () => {
      current = false;
    };
  }, [round, again]);
  return { waiting: counted?.waiting ?? null, uncounted: counted?.uncounted ?? [], recount: () => setAgain((n) => n + 1) };
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
