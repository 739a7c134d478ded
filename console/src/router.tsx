import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';

/** Where the server mounts the console; every in-app path is relative to it. */
const BASE = '/console';

const NAVIGATED = 'console:navigate';

/** The path inside the console (`/`, `/workspaces/…`). */
function currentPath(): string {
  const { pathname } = window.location;
  if (!pathname.startsWith(BASE)) return '/';
  const rest = pathname.slice(BASE.length);
  return rest === '' ? '/' : rest;
}

export function navigate(to: string, options: { replace?: boolean } = {}) {
  const url = BASE + to;
  if (options.replace) window.history.replaceState(null, '', url);
  else window.history.pushState(null, '', url);
  window.dispatchEvent(new Event(NAVIGATED));
}

/** The current in-app path, following the back and forward buttons and navigate(). */
export function usePath(): string {
  const [path, setPath] = useState(currentPath);
  useEffect(() => {
    const update = () => setPath(currentPath());
    window.addEventListener('popstate', update);
    window.addEventListener(NAVIGATED, update);
    return () => {
      window.removeEventListener('popstate', update);
      window.removeEventListener(NAVIGATED, update);
    };
  }, []);
  return path;
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

interface LinkProps {
  href: string;
  children: ComponentChildren;
  class?: string;
  current?: boolean;
  'aria-label'?: string;
}

/** An ordinary link (open in a new tab works) that navigates inside the app on a plain click. */
export function Link({ href, children, current, ...rest }: LinkProps) {
  return (
    <a
      {...rest}
      href={BASE + href}
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
