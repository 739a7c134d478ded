import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { errors } from '../../lib/errors.js';
import { errorResponses } from '../../lib/schemas.js';
import { cookieOf } from '../operator-sessions/index.js';
import * as repo from './sign-in.repository.js';
import {
  CodeBody,
  InviteAcceptance,
  LinkRedemption,
  LinkRequest,
  PasswordChange,
  PasswordResetCompletion,
  PasswordSignIn,
  SignInSession,
  TotpConfirmation,
  TotpEnrolment,
  WorkspaceParams,
} from './sign-in.schemas.js';
import * as service from './sign-in.service.js';
import type { ActiveSession, Attempt, Opened, SignInSettings } from './sign-in.service.js';

const tags = ['sign-in'];
const NoContent = Type.Null({ description: 'no body' });
/** The answer to a request for an e-mailed link: the same whoever the address is (no enumeration). */
const LinkRequested = Type.Object({ message: Type.String() }, { title: 'SignInLinkRequested' });
const LINK_REQUESTED = { message: 'If this e-mail belongs to someone who may sign in here, a link is on its way.' };
/** The session cookie: HttpOnly, scoped to the workspace's portal, Lax (an OpenID provider's redirect back must carry it). */
export const SIGN_IN_COOKIE = 'portal_session';
/** What a browser request that changes anything must carry (CSRF): no other site can make a browser send it. */
export const PORTAL_REQUEST_HEADER = 'x-portal-request';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A portal route that needs a session: `any` takes one at the TOTP step too (to pass or enrol it). */
    signedIn?: 'active' | 'any';
  }
  interface FastifyRequest {
    signInSession: ActiveSession;
  }
}

function toView(session: ActiveSession): SignInSession {
  const { person } = session;
  return {
    object: 'signInSession',
    id: session.id,
    stage: session.stage,
    method: session.method,
    user: {
      type: person.type,
      id: person.id,
      email: person.email,
      givenName: person.givenName,
      familyName: person.familyName,
      ...(person.role ? { role: person.role } : {}),
      ...(person.companyId ? { companyId: person.companyId } : {}),
    },
    mfaEnabled: session.mfaEnabled,
    createdAt: session.createdAt,
    expiresAt: session.expiresAt,
  };
}

/**
 * The sign-in API a portal front end calls, under /portal/{workspaceId}/api: cookie sessions for browsers. Every
 * request that changes anything must carry `X-Portal-Request: 1` and, when the browser sends an Origin, come from
 * this service's own; answers are never cached.
 */
export async function signInRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { database, clock, config, limitStore, authFailures } = app.ctx;
  const settings: SignInSettings = { database, limitStore, authFailures, portalUrl: config.portalUrl };
  const secure = (request: FastifyRequest) => request.protocol === 'https' || config.portalUrl.startsWith('https:');
  app.decorateRequest('signInSession', null as unknown as ActiveSession);

  const attemptOf = (request: FastifyRequest): Attempt => {
    const userAgent = request.headers['user-agent'];
    return {
      workspaceId: (request.params as { workspaceId: string }).workspaceId.toLowerCase(),
      at: clock.now(),
      ip: request.ip ?? null,
      userAgent: typeof userAgent === 'string' ? userAgent.slice(0, 512) : null,
    };
  };

  const setCookie = (request: FastifyRequest, reply: FastifyReply, value: string, maxAgeSeconds: number) => {
    const { workspaceId } = request.params as { workspaceId: string };
    reply.header(
      'set-cookie',
      `${SIGN_IN_COOKIE}=${value}; Path=/portal/${workspaceId.toLowerCase()}; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Lax${secure(request) ? '; Secure' : ''}`,
    );
  };
  const opened = (request: FastifyRequest, reply: FastifyReply, { token, session }: Opened) => {
    setCookie(request, reply, token, Math.max(0, Math.floor((Date.parse(session.expiresAt) - clock.now()) / 1000)));
    return toView(session);
  };

  app.addHook('onRequest', async (request, reply) => {
    reply.header('cache-control', 'no-store');
    if (request.method === 'GET' || request.method === 'HEAD') return;
    if (request.headers[PORTAL_REQUEST_HEADER] !== '1')
      throw errors.forbidden('Send X-Portal-Request: 1 with every request that changes something (it keeps other sites from sending it).');
    const origin = request.headers.origin;
    if (origin !== undefined && origin !== `${request.protocol}://${request.host}` && origin !== new URL(config.portalUrl).origin)
      throw errors.forbidden('Cross-origin requests are refused.');
  });
  // The workspace first (404), then the session the route needs (401; 403 while a second factor is due).
  app.addHook('preHandler', async (request) => {
    const attempt = attemptOf(request);
    if ((await repo.staffMfaRequired(database.db, attempt.workspaceId)) === undefined) throw errors.notFound('Workspace');
    const needs = request.routeOptions.config.signedIn;
    if (!needs) return;
    const token = cookieOf(request.headers.cookie, SIGN_IN_COOKIE);
    const session = token ? await service.findSession(settings, attempt.workspaceId, token, attempt.at) : undefined;
    if (!session) throw errors.unauthorized('Not signed in, or the session has ended: sign in again.');
    if (needs === 'active' && session.stage !== 'active') throw errors.forbidden('Finish signing in first (the TOTP step).');
    request.signInSession = session;
  });

  const route = (operationId: string, summary: string, description: string) => ({
    tags,
    security: [],
    operationId,
    summary,
    description,
    params: WorkspaceParams,
  });
  const SIGNED_IN = { security: [{ portalSession: [] }] };

  app.post(
    '/sign-in/password',
    {
      schema: {
        ...route(
          'signInWithPassword',
          'Sign in with an e-mail and a password',
          'Sets the session cookie. A wrong e-mail or password is the same 401 (and takes as long); 10 failures for an e-mail, then one more ' +
            'every 90 s (429), and the address’s failures are limited too; a link by e-mail still signs the person in. Records ' +
            'userLoginSucceeded and, unless a TOTP step is due (`stage`), userLoggedIn; a failure userLoginFailed.',
        ),
        body: PasswordSignIn,
        response: { 200: SignInSession, ...errorResponses(400, 401, 403, 404, 429, 500) },
      },
    },
    async (request, reply) =>
      opened(
        request,
        reply,
        await service.signInWithPassword(settings, { ...request.body, userType: request.body.userType ?? 'client' }, attemptOf(request)),
      ),
  );

  app.post(
    '/sign-in/link',
    {
      schema: {
        ...route(
          'requestSignInLink',
          'E-mail a sign-in link',
          'Always 202, whether or not the e-mail belongs to someone who may sign in. The link works once, for 15 minutes; a newer one ' +
            'replaces it; 5 e-mails to one address, then one more every 12 minutes. Records magicLinkSent.',
        ),
        body: LinkRequest,
        response: { 202: LinkRequested, ...errorResponses(400, 403, 404, 500) },
      },
    },
    async (request, reply) => {
      await service.requestMagicLink(settings, { ...request.body, userType: request.body.userType ?? 'client' }, attemptOf(request));
      return reply.code(202).send(LINK_REQUESTED);
    },
  );

  app.post(
    '/sign-in/link/redeem',
    {
      schema: {
        ...route(
          'redeemSignInLink',
          'Sign in with an e-mailed link',
          'The token from the link’s fragment; used once. Records userLoginSucceeded (and userLoggedIn, clientActivated on a client’s first sign-in).',
        ),
        body: LinkRedemption,
        response: { 200: SignInSession, ...errorResponses(400, 401, 403, 404, 429, 500) },
      },
    },
    async (request, reply) => opened(request, reply, await service.redeemMagicLink(settings, request.body.token, attemptOf(request))),
  );

  app.post(
    '/sign-in/totp',
    {
      config: { signedIn: 'any' },
      schema: {
        ...route(
          'verifySignInCode',
          'Pass the TOTP step',
          'A code of the authenticator (each accepted once) or an unused recovery code; a new session cookie replaces the first step’s. Records userLoggedIn, or userLoginFailed.',
        ),
        ...SIGNED_IN,
        body: CodeBody,
        response: { 200: SignInSession, ...errorResponses(400, 401, 403, 404, 409, 429, 500) },
      },
    },
    async (request, reply) =>
      opened(request, reply, await service.verifySecondFactor(settings, request.signInSession, request.body.code, attemptOf(request))),
  );

  app.post(
    '/password-resets',
    {
      schema: {
        ...route(
          'requestPasswordReset',
          'E-mail a password-reset link',
          'Always 202 (see requestSignInLink); the link works once, for 30 minutes, and only to reset the password.',
        ),
        body: LinkRequest,
        response: { 202: LinkRequested, ...errorResponses(400, 403, 404, 500) },
      },
    },
    async (request, reply) => {
      await service.requestPasswordReset(settings, { ...request.body, userType: request.body.userType ?? 'client' }, attemptOf(request));
      return reply.code(202).send(LINK_REQUESTED);
    },
  );

  app.post(
    '/password-resets/complete',
    {
      schema: {
        ...route(
          'completePasswordReset',
          'Set a new password from a reset link',
          'Every session of the person ends; sign in with the new password. Records passwordReset.',
        ),
        body: PasswordResetCompletion,
        response: { 204: NoContent, ...errorResponses(400, 401, 403, 404, 429, 500) },
      },
    },
    async (request, reply) => {
      await service.completePasswordReset(settings, request.body, attemptOf(request));
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/invites/accept',
    {
      schema: {
        ...route(
          'acceptInvite',
          'Accept a client’s invite',
          'The token from the `inviteUrl`’s fragment, and optionally the password the client chooses (without one, the client signs in by e-mailed ' +
            'links). Signs the client in: it becomes `active`. Records userLoginSucceeded, userLoggedIn and clientActivated.',
        ),
        body: InviteAcceptance,
        response: { 200: SignInSession, ...errorResponses(400, 401, 403, 404, 429, 500) },
      },
    },
    async (request, reply) => opened(request, reply, await service.acceptInvite(settings, request.body, attemptOf(request))),
  );

  app.get(
    '/session',
    {
      config: { signedIn: 'any' },
      schema: {
        ...route('retrieveSignInSession', 'The signed-in person', '401 when not signed in (or the session has ended).'),
        ...SIGNED_IN,
        response: { 200: SignInSession, ...errorResponses(400, 401, 404, 500) },
      },
    },
    async (request) => toView(request.signInSession),
  );

  app.delete(
    '/session',
    {
      schema: {
        ...route(
          'signOut',
          'Sign out',
          'Ends the session on every server and clears the cookie; without one, just clears it. Records userLoggedOut.',
        ),
        response: { 204: NoContent, ...errorResponses(400, 403, 404, 500) },
      },
    },
    async (request, reply) => {
      const attempt = attemptOf(request);
      const token = cookieOf(request.headers.cookie, SIGN_IN_COOKIE);
      const session = token ? await service.findSession(settings, attempt.workspaceId, token, attempt.at) : undefined;
      if (session) await service.signOut(settings, session, attempt);
      setCookie(request, reply, '', 0);
      return reply.code(204).send(null);
    },
  );

  app.put(
    '/password',
    {
      config: { signedIn: 'active' },
      schema: {
        ...route(
          'changePassword',
          'Change (or set) the password',
          'The current password is required when one is set, however the session was opened (a session from an e-mailed link cannot take ' +
            'the account over). The person’s other sessions end. Records passwordChanged.',
        ),
        ...SIGNED_IN,
        body: PasswordChange,
        response: { 204: NoContent, ...errorResponses(400, 401, 403, 404, 429, 500) },
      },
    },
    async (request, reply) => {
      await service.changePassword(settings, request.signInSession, request.body, attemptOf(request));
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/mfa/totp',
    {
      config: { signedIn: 'any' },
      schema: {
        ...route(
          'beginTotpEnrolment',
          'Start enrolling an authenticator',
          'A new TOTP secret (RFC 6238: SHA-1, 6 digits, 30 s), in force once confirmed.',
        ),
        ...SIGNED_IN,
        response: { 200: TotpEnrolment, ...errorResponses(400, 401, 403, 404, 409, 500) },
      },
    },
    async (request) => service.beginTotpEnrolment(settings, request.signInSession, 'Portal', attemptOf(request)),
  );

  app.post(
    '/mfa/totp/confirm',
    {
      config: { signedIn: 'any' },
      schema: {
        ...route('confirmTotpEnrolment', 'Confirm the authenticator', 'A current code turns TOTP on and answers ten recovery codes, once.'),
        ...SIGNED_IN,
        body: CodeBody,
        response: { 200: TotpConfirmation, ...errorResponses(400, 401, 403, 404, 409, 500) },
      },
    },
    async (request, reply) => {
      const { recoveryCodes, opened: next } = await service.confirmTotpEnrolment(
        settings,
        request.signInSession,
        request.body.code,
        attemptOf(request),
      );
      return { recoveryCodes, session: next ? opened(request, reply, next) : toView({ ...request.signInSession, mfaEnabled: true }) };
    },
  );

  app.post(
    '/mfa/totp/disable',
    {
      config: { signedIn: 'active' },
      schema: {
        ...route(
          'disableTotp',
          'Turn TOTP off',
          'A current code is required; an internal user of a workspace that requires TOTP gets a 409.',
        ),
        ...SIGNED_IN,
        body: CodeBody,
        response: { 204: NoContent, ...errorResponses(400, 401, 403, 404, 409, 500) },
      },
    },
    async (request, reply) => {
      await service.disableTotp(settings, request.signInSession, request.body.code, attemptOf(request));
      return reply.code(204).send(null);
    },
  );
}
