import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { cookieOf } from '../lib/cookies.js';
import { SIGN_IN_COOKIE } from '../lib/sign-in-sessions.js';
import { type ActiveSession, sessionForRoute } from '../modules/surfaces/sign-in/index.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A portal route that needs a session: `any` takes one at the TOTP step too (to pass or enrol it). */
    signedIn?: 'active' | 'any';
  }
  interface FastifyRequest {
    /** The sign-in session a portal route with `config.signedIn` runs for (set by portalSignIn). */
    signInSession: ActiveSession;
  }
}

/**
 * The sign-in API's authentication, under /portal/{workspaceId}/api: the workspace first (404), then the session the
 * route needs (`config.signedIn`) from its cookie (401; 403 while a second factor is due), as `request.signInSession`.
 */
export const portalSignIn = fp(
  async function portalSignIn(app: FastifyInstance) {
    const { database, clock } = app.ctx;
    app.decorateRequest('signInSession', null as unknown as ActiveSession);
    app.addHook('preHandler', async function findSignInSession(request) {
      const { workspaceId } = request.params as { workspaceId: string };
      const token = cookieOf(request.headers.cookie, SIGN_IN_COOKIE);
      const session = await sessionForRoute(database, workspaceId, token, clock.now(), request.routeOptions.config.signedIn);
      if (session) request.signInSession = session;
    });
  },
  { name: 'portal-sign-in' },
);
