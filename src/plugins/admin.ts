import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Caller } from '../lib/caller.js';
import { errors } from '../lib/errors.js';
import { cookieOf } from '../lib/cookies.js';
import { CONSOLE_HEADER, OperatorSessions, SESSION_COOKIE, adminTokenMatcher } from '../modules/surfaces/operator-sessions/index.js';
import { operatorCaller } from '../modules/resources/workspaces/index.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** An /admin route open without credentials (signing in and out of the console). */
    adminPublic?: boolean;
  }
}

const BEARER = /^Bearer +(\S+) *$/i;

/**
 * The operator's credentials, as an onRequest hook (the /admin surface and /metrics): `Authorization:
 * Bearer <PORTAL_ADMIN_TOKEN>`, or the admin console's session cookie. A cookie is sent by the browser on
 * its own, so a request it authenticates must also carry `X-Portal-Console: 1`: a custom header that no
 * other site can make a browser send (no CORS is granted), which with SameSite=Strict makes the console
 * CSRF-safe. Failures are 401s, counted by the same per-IP limiter as the API's (contract §6), which
 * answers 429 to failures only.
 */
export function adminGuard(app: FastifyInstance, adminToken: string) {
  const isAdminToken = adminTokenMatcher(adminToken);
  const sessions = new OperatorSessions(adminToken, app.ctx.db);
  return async function requireOperator(request: FastifyRequest) {
    if (request.routeOptions.config.adminPublic) return;
    const now = app.ctx.clock.now();
    // Verified first, as on /v1: strangers' failures from this address never lock out the operator's
    // token or cookie; only a failure answers 429 while the address is out of tries.
    const header = request.headers.authorization;
    if (header === undefined) {
      const session = cookieOf(request.headers.cookie, SESSION_COOKIE);
      if (session !== undefined && (await sessions.verify(session, now)) !== undefined) {
        if (request.headers[CONSOLE_HEADER] !== '1')
          throw errors.forbidden('A request authenticated by the console session cookie must carry X-Portal-Console: 1.');
        return;
      }
    }
    const presented = typeof header === 'string' ? BEARER.exec(header)?.[1] : undefined;
    if (presented === undefined || !isAdminToken(presented)) {
      throw await app.ctx.authFailures.fail(
        request.ip,
        now,
        errors.unauthorized('Missing or wrong admin token: send Authorization: Bearer <PORTAL_ADMIN_TOKEN>, or sign in to the console.'),
      );
    }
  };
}

/**
 * The admin surface (contract §7), for the scope it is registered in (app.ts registers it under /admin,
 * only when PORTAL_ADMIN_TOKEN is set, with every module's admin routes beside it): the operator's
 * credentials on every route, then, on `/admin/workspaces/:workspaceId/…`, `request.caller` is the
 * operator acting on that workspace as the system (source `system` in the audit log). An unknown
 * workspace is a 404 before the handler runs (after the input's 400, as for any route).
 */
export default fp(
  async function adminSurface(app: FastifyInstance, opts: { adminToken: string }) {
    const { database, clock } = app.ctx;
    app.addHook('onRequest', adminGuard(app, opts.adminToken));
    app.decorateRequest('caller', null as unknown as Caller);
    app.addHook('preHandler', async function operatorOnWorkspace(request) {
      const { workspaceId } = request.params as { workspaceId?: string };
      if (workspaceId !== undefined) request.caller = await operatorCaller(database, workspaceId, clock.now());
    });
  },
  { name: 'admin-surface' },
);
