import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { errors } from '../../lib/errors.js';
import { CONSOLE_HEADER, OperatorSessions, SESSION_COOKIE, cookieOf } from './operator-session.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** An /admin route open without credentials (signing in and out of the console). */
    adminPublic?: boolean;
  }
}

const BEARER = /^Bearer +(\S+) *$/i;
const digest = (text: string) => createHash('sha256').update(text).digest();

/** Whether `presented` is the admin token, in constant time (as SHA-256 digests, so the length leaks nothing either). */
export function adminTokenMatcher(adminToken: string) {
  const expected = digest(adminToken);
  return (presented: string) => timingSafeEqual(digest(presented), expected);
}

/**
 * The /admin surface's onRequest hook: `Authorization: Bearer <PORTAL_ADMIN_TOKEN>`, or the admin
 * console's session cookie. A cookie is sent by the browser on its own, so a request it authenticates
 * must also carry `X-Portal-Console: 1`: a custom header that no other site can make a browser send
 * (no CORS is granted), which with SameSite=Strict makes the console CSRF-safe. Failures are 401s,
 * counted by the same per-IP limiter as the API's (contract §6), which answers 429 to failures only.
 */
export function adminGuard(app: FastifyInstance, adminToken: string) {
  const isAdminToken = adminTokenMatcher(adminToken);
  const sessions = new OperatorSessions(adminToken, app.ctx.db);
  return async function requireOperator(request: FastifyRequest) {
    if (request.routeOptions.config.adminPublic) return;
    const now = app.ctx.clock.now();
    const limiter = app.ctx.authFailures;
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
      throw await limiter.fail(
        request.ip,
        now,
        errors.unauthorized('Missing or wrong admin token: send Authorization: Bearer <PORTAL_ADMIN_TOKEN>, or sign in to the console.'),
      );
    }
  };
}
