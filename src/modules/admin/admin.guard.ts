import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { errors } from '../../lib/errors.js';

const BEARER = /^Bearer +(\S+) *$/i;
const digest = (text: string) => createHash('sha256').update(text).digest();

/**
 * The /admin surface's onRequest hook: `Authorization: Bearer <PORTAL_ADMIN_TOKEN>`, compared in
 * constant time (as SHA-256 digests, so the length leaks nothing either). Failures are 401s, counted
 * by the same per-IP limiter as the API's (contract §6).
 */
export function adminGuard(app: FastifyInstance, adminToken: string) {
  const expected = digest(adminToken);
  return async function requireAdminToken(request: FastifyRequest) {
    const now = app.ctx.clock.now();
    const limiter = app.ctx.authFailures;
    limiter.check(request.ip, now);
    const header = request.headers.authorization;
    const presented = typeof header === 'string' ? BEARER.exec(header)?.[1] : undefined;
    if (presented === undefined || !timingSafeEqual(digest(presented), expected)) {
      throw await limiter.fail(
        request.ip,
        now,
        errors.unauthorized('Missing or wrong admin token: send Authorization: Bearer <PORTAL_ADMIN_TOKEN>.'),
      );
    }
  };
}
