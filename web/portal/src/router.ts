import { createRouter } from '../../kit/router.js';

/** The workspace whose portal this is: the first segment after /portal/ (the server serves no page elsewhere). */
export const WORKSPACE_ID = /^\/portal\/([^/]+)/.exec(window.location.pathname)?.[1] ?? '';

/** The portal's router: the pages of this workspace live at /portal/{workspaceId}/ (`/` is the account). */
export const { base: BASE, Link, navigate, usePath } = createRouter(`/portal/${WORKSPACE_ID}`);

/**
 * The secret an e-mailed link carries in its fragment (`…/magic-link#<token>`), taken once and removed from the
 * address bar at once, so that it is neither in the history nor in a screenshot of the page, nor sent anywhere.
 */
export function takeLinkToken(): string {
  const token = window.location.hash.slice(1);
  if (window.location.hash) window.history.replaceState(window.history.state, '', window.location.pathname + window.location.search);
  return token;
}
