import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { errors } from '../lib/errors.js';
import { isRead } from '../lib/policy.js';
import { PORTAL_REQUEST_HEADER } from '../lib/sign-in-sessions.js';

/**
 * A person signed in to the portal calls the same API as everyone, with its cookie, under its workspace's portal:
 * `/portal/{workspaceId}/v1/…` is `/v1/…` (one route table, one policy walk), reached by the browser with the
 * session cookie, which is scoped to `/portal/{workspaceId}` so that two workspaces' sign-ins in one browser
 * stay apart. What this file holds: the URL rewrite that remembers the workspace, and the
 * cross-site rule every cookie request that changes something keeps (the sign-in API's and the /v1 API's).
 */

const PORTAL_API = /^\/portal\/([0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12})(\/v1(?:[/?].*)?)$/s;
const PORTAL_WORKSPACE = Symbol('portalWorkspace');
type PortalRaw = IncomingMessage & { [PORTAL_WORKSPACE]?: string };

/** Fastify's `rewriteUrl`: `/portal/{workspaceId}/v1/…` is routed as `/v1/…`, the workspace remembered for the auth hook. */
export function rewritePortalApiUrl(raw: IncomingMessage): string {
  const url = raw.url ?? '/';
  if (!url.startsWith('/portal/')) return url;
  const match = PORTAL_API.exec(url);
  if (!match) return url;
  (raw as PortalRaw)[PORTAL_WORKSPACE] = match[1].toLowerCase();
  return match[2];
}

/** The workspace of a /v1 request that came through its portal (a cookie request); undefined for every other. */
export const portalWorkspaceOf = (request: FastifyRequest): string | undefined => (request.raw as PortalRaw)[PORTAL_WORKSPACE];

/**
 * The cross-site rule of cookie requests: one that changes something carries `X-Portal-Request: 1` (a header no
 * other site can make a browser send without a preflight this server never grants) and, when the browser names an
 * Origin, comes from this service's own (the request's host, or PORTAL_URL's behind a proxy).
 */
export function assertSameSite(request: FastifyRequest, portalUrl: string): void {
  if (isRead(request.method)) return;
  if (request.headers[PORTAL_REQUEST_HEADER] !== '1')
    throw errors.forbidden('Send X-Portal-Request: 1 with every request that changes something (it keeps other sites from sending it).');
  const origin = request.headers.origin;
  if (origin !== undefined && origin !== `${request.protocol}://${request.host}` && origin !== new URL(portalUrl).origin)
    throw errors.forbidden('Cross-origin requests are refused.');
}

/** The sign-in API's scope: answers never cached, and the cross-site rule on every change. */
export const portalCsrf = fp(
  async function portalCsrf(app: FastifyInstance) {
    const { portalUrl } = app.ctx.config;
    app.addHook('onRequest', async function refuseCrossSite(request, reply) {
      reply.header('cache-control', 'no-store');
      assertSameSite(request, portalUrl);
    });
  },
  { name: 'portal-csrf' },
);
