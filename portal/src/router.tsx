import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';

/** The workspace whose portal this is: the first segment after /portal/ (the server serves no page elsewhere). */
const WORKSPACE_ID = /^\/portal\/([^/]+)/.exec(window.location.pathname)?.[1] ?? '';

/** Where the pages of this workspace live; every in-app path (`sign-in`, `` for home) is relative to it. */
export const BASE = `/portal/${WORKSPACE_ID}`;

const NAVIGATED = 'portal:navigate';

/** The page's path after /portal/{workspaceId}/, without slashes at either end (`` is home). */
function currentPath(): string {
  return window.location.pathname.slice(BASE.length).replace(/^\/+|\/+$/g, '');
}

/** Goes to an in-app path (`sign-in`, `totp`, `` for home; a query may follow). */
export function navigate(to: string, options: { replace?: boolean } = {}) {
  const url = `${BASE}/${to}`;
  if (options.replace) window.history.replaceState(null, '', url);
  else window.history.pushState(null, '', url);
  window.dispatchEvent(new Event(NAVIGATED));
}

/**
 * The current in-app path, following the back and forward buttons and navigate(); `round` counts the
 * navigations (a page opened again at the same path is a new one).
 */
export function usePath(): { path: string; round: number } {
  const [state, setState] = useState(() => ({ path: currentPath(), round: 0 }));
  useEffect(() => {
    const update = () => setState((previous) => ({ path: currentPath(), round: previous.round + 1 }));
    window.addEventListener('popstate', update);
    window.addEventListener(NAVIGATED, update);
    return () => {
      window.removeEventListener('popstate', update);
      window.removeEventListener(NAVIGATED, update);
    };
  }, []);
  return state;
}

/**
 * The secret an e-mailed link carries in its fragment (`…/magic-link#<token>`), taken once and removed from the
 * address bar at once, so that it is neither in the history nor in a screenshot of the page, nor sent anywhere.
 */
export function takeLinkToken(): string {
  const token = window.location.hash.slice(1);
  if (window.location.hash) window.history.replaceState(window.history.state, '', window.location.pathname + window.location.search);
  return token;
}

/** An ordinary link (open in a new tab works) that navigates inside the app on a plain click. */
export function Link({ to, children, class: className }: { to: string; children: ComponentChildren; class?: string }) {
  return (
    <a
      class={className}
      href={`${BASE}/${to}`}
      onClick={(event) => {
        if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
        event.preventDefault();
        navigate(to);
      }}
    >
      {children}
    </a>
  );
}
