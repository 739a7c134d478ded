import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';

/** Dispatched by navigate(): the address changed without a popstate. */
const NAVIGATED = 'web-kit:navigate';

export interface LinkProps {
  /** an in-app path, `/` first (`/`, `/sign-in`, `/workspaces/…`; a query may follow) */
  href: string;
  children: ComponentChildren;
  class?: string;
  /** marks the link as the current page (aria-current) */
  current?: boolean;
  'aria-label'?: string;
}

/**
 * The router of one front end mounted at `base` (`/console`, `/portal/{workspaceId}`): every in-app path is relative
 * to it and starts with `/` (`/` is the front end's home). The history API only: no hash routes, no library.
 */
export function createRouter(base: string) {
  /** The path inside the app: `/` then the rest without a trailing slash. */
  function currentPath(): string {
    const { pathname } = window.location;
    if (!pathname.startsWith(base)) return '/';
    return `/${pathname.slice(base.length).replace(/^\/+|\/+$/g, '')}`;
  }

  /** Goes to an in-app path; `replace` takes the current history entry's place (a redirect). */
  function navigate(to: string, options: { replace?: boolean } = {}) {
    const url = base + to;
    if (options.replace) window.history.replaceState(null, '', url);
    else window.history.pushState(null, '', url);
    window.dispatchEvent(new Event(NAVIGATED));
  }

  /**
   * The current in-app path, following the back and forward buttons and navigate(); `round` counts the
   * navigations (a page opened again at the same path is a new one).
   */
  function usePath(): { path: string; round: number } {
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

  /** An ordinary link (open in a new tab works) that navigates inside the app on a plain click. */
  function Link({ href, children, current, ...rest }: LinkProps) {
    return (
      <a
        {...rest}
        href={base + href}
        aria-current={current ? 'page' : undefined}
        onClick={(event) => {
          if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
          event.preventDefault();
          navigate(href);
        }}
      >
        {children}
      </a>
    );
  }

  return { base, navigate, usePath, Link };
}

/** The parameters of `pattern` (`/workspaces/:id/clients`) in `path`, or null when it does not match. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const want = pattern.split('/');
  const have = path.replace(/\/+$/, '').split('/');
  if (want.length !== have.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    if (want[i].startsWith(':')) {
      if (have[i] === '') return null;
      try {
        params[want[i].slice(1)] = decodeURIComponent(have[i]);
      } catch {
        return null;
      }
    } else if (want[i] !== have[i]) return null;
  }
  return params;
}
