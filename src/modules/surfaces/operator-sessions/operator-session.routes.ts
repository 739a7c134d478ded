import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { isoAt } from '../../../lib/clock.js';
import { errors } from '../../../lib/errors.js';
import { errorResponses } from '../../../lib/schemas.js';
import { cookieOf } from '../../../lib/cookies.js';
import { OperatorSessions, SESSION_COOKIE, adminTokenMatcher, sessionCookie } from './operator-session.js';

const tags = ['admin'];
const NoContent = Type.Null({ description: 'no body' });

/**
 * Signing in and out of the admin console: the admin token is exchanged once for an HttpOnly,
 * SameSite=Strict session cookie (Secure on https); the console never keeps the token itself.
 */
export async function operatorSessionRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { clock, config, authFailures } = app.ctx;
  // Registered only with the admin surface, which exists only with PORTAL_ADMIN_TOKEN.
  const adminToken = app.ctx.config.adminToken ?? '';
  const sessions = new OperatorSessions(adminToken, app.ctx.db);
  const isAdminToken = adminTokenMatcher(adminToken);
  const secure = (request: FastifyRequest) => request.protocol === 'https' || config.portalUrl.startsWith('https:');

  app.post(
    '/session',
    {
      config: { adminPublic: true },
      schema: {
        tags,
        security: [],
        operationId: 'adminSignIn',
        summary: 'Sign in to the admin console',
        description:
          'Exchanges the admin token for a session cookie (`portal_admin`, HttpOnly, SameSite=Strict, 8 hours). ' +
          'Requests it authenticates must carry `X-Portal-Console: 1`. A wrong token is a 401 counted by the per-IP failure limit (429 while the address is out of tries; the right token always signs in).',
        body: Type.Object({ token: Type.String({ maxLength: 1000 }) }, { additionalProperties: false, title: 'OperatorSignIn' }),
        response: { 204: NoContent, ...errorResponses(400, 401, 413, 415, 429, 500) },
      },
    },
    async (request, reply) => {
      const now = clock.now();
      if (!isAdminToken(request.body.token)) throw await authFailures.fail(request.ip, now, errors.unauthorized('Wrong admin token.'));
      const session = sessions.issue(now);
      reply.header('set-cookie', sessionCookie(session.value, Math.floor((session.expiresAt - now) / 1000), secure(request)));
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/session',
    {
      schema: {
        tags,
        security: [{ adminToken: [] }],
        operationId: 'adminRetrieveSession',
        summary: 'The console session',
        description: 'When it ends (null for a request with the admin token itself). 401 when signed out or expired.',
        response: {
          200: Type.Object({ expiresAt: Type.Union([Type.String(), Type.Null()]) }, { title: 'OperatorSession' }),
          ...errorResponses(400, 401, 403, 429, 500),
        },
      },
    },
    async (request) => {
      const cookie = cookieOf(request.headers.cookie, SESSION_COOKIE);
      const expiresAt = request.headers.authorization === undefined && cookie ? await sessions.verify(cookie, clock.now()) : undefined;
      return { expiresAt: expiresAt === undefined ? null : isoAt(expiresAt) };
    },
  );

  app.delete(
    '/session',
    {
      config: { adminPublic: true },
      schema: {
        tags,
        security: [],
        operationId: 'adminSignOut',
        summary: 'Sign out of the admin console',
        description: 'Ends the session on every server (the cookie is refused from then on, even if kept) and clears the cookie.',
        response: { 204: NoContent, ...errorResponses(400, 500) },
      },
    },
    async (request, reply) => {
      const cookie = cookieOf(request.headers.cookie, SESSION_COOKIE);
      if (cookie) await sessions.revoke(cookie, clock.now());
      reply.header('set-cookie', sessionCookie('', 0, secure(request)));
      return reply.code(204).send(null);
    },
  );
}
