import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { cookieOf } from '../../../lib/cookies.js';
import { errors } from '../../../lib/errors.js';
import { SecretBox } from '../../../lib/secret-box.js';
import { SIGN_IN_COOKIE } from '../../../lib/sign-in-sessions.js';
import type { SignInLinkPurpose } from '../../../db/schema.js';
import { OidcProviders, type PendingOidc } from './oidc.js';
import type { SignInSession } from './sign-in.schemas.js';
import * as service from './sign-in.service.js';
import type { ActiveSession, Attempt, Opened, SignInSettings } from './sign-in.service.js';
import type { UserType } from './sign-in.repository.js';

/** What the sign-in routes do of HTTP: the attempt a request is, cookies, the OpenID round trip, redirects. */

/** The sealed cookie that carries a started OpenID sign-in to the provider's callback (one path for every workspace). */
const OIDC_COOKIE = 'portal_oidc';
const OIDC_PATH = '/portal/oidc';
const OIDC_PENDING_MS = 10 * 60_000;
/** The portal's page for what comes after an OpenID sign-in, by the session's stage. */
const STAGE_PAGES = { active: '', mfaRequired: 'totp', mfaEnrolmentRequired: 'enrol-mfa' } as const;
/** The answer to a request for an e-mailed link: the same whoever the address is (no enumeration). */
const LINK_REQUESTED = { message: 'If this e-mail belongs to someone who may sign in here, a link is on its way.' };

/** A session as the API shows it. */
export function toView(session: ActiveSession): SignInSession {
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

/** A body's user type: a client unless it says otherwise. */
export const withUserType = <T extends { userType?: UserType }>(body: T): T & { userType: UserType } => ({
  ...body,
  userType: body.userType ?? 'client',
});

/** The sign-in routes' HTTP helpers, built once per route plugin from the app's context. */
export function signInHttp(app: FastifyInstance) {
  const { database, clock, config, limitStore, authFailures, afterResponse } = app.ctx;
  const settings: SignInSettings = { database, limitStore, authFailures, portalUrl: config.portalUrl };
  const box = new SecretBox(app.ctx.secrets.signIn);
  const providers = new OidcProviders(config.oidcProviders, config.portalUrl);
  const secure = (request: FastifyRequest) => request.protocol === 'https' || config.portalUrl.startsWith('https:');
  const cookie = (request: FastifyRequest, name: string, value: string, path: string, maxAgeSeconds: number) =>
    `${name}=${value}; Path=${path}; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Lax${secure(request) ? '; Secure' : ''}`;
  const workspaceOf = (request: FastifyRequest) => (request.params as { workspaceId: string }).workspaceId;

  /** The request as a sign-in attempt: its workspace, time and origin. */
  const attemptOf = (request: FastifyRequest, workspaceId = workspaceOf(request)): Attempt => {
    const userAgent = request.headers['user-agent'];
    return {
      workspaceId,
      at: clock.now(),
      ip: request.ip ?? null,
      userAgent: typeof userAgent === 'string' ? userAgent.slice(0, 512) : null,
    };
  };

  /** Sets the session cookie of a session just opened (its workspace's path) and answers the session. */
  const opened = (request: FastifyRequest, reply: FastifyReply, { token, session }: Opened): SignInSession => {
    const maxAge = Math.max(0, Math.floor((Date.parse(session.expiresAt) - clock.now()) / 1000));
    reply.header('set-cookie', cookie(request, SIGN_IN_COOKIE, token, `/portal/${session.person.workspaceId}`, maxAge));
    return toView(session);
  };

  /** The session the request's cookie opens, if any (for routes that take one without needing it). */
  const cookieSession = (request: FastifyRequest, attempt: Attempt) => {
    const token = cookieOf(request.headers.cookie, SIGN_IN_COOKIE);
    return token ? service.findSession(settings, attempt.workspaceId, token, attempt.at) : Promise.resolve(undefined);
  };

  return {
    settings,
    box,
    providers,
    attemptOf,
    opened,

    /** Answers 202 at once and e-mails the link after (the answer's time tells nothing of the address). */
    sendLinkAfter(request: FastifyRequest, reply: FastifyReply, purpose: SignInLinkPurpose, body: { email: string; userType?: UserType }) {
      const attempt = attemptOf(request);
      const what = purpose === 'signIn' ? 'sign-in link' : 'password-reset link';
      afterResponse.run(reply, what, () => service.sendLink(settings, purpose, withUserType(body), attempt));
      return reply.code(202).send(LINK_REQUESTED);
    },

    /** A confirmed enrolment's answer: a new session's cookie when it finished a sign-in. */
    confirmed(request: FastifyRequest, reply: FastifyReply, result: { recoveryCodes: string[]; opened?: Opened }) {
      const { recoveryCodes, opened: next } = result;
      return { recoveryCodes, session: next ? opened(request, reply, next) : toView({ ...request.signInSession, mfaEnabled: true }) };
    },

    /** Ends the cookie's session, if any, and clears the cookie either way: 204. */
    async signOut(request: FastifyRequest, reply: FastifyReply) {
      const attempt = attemptOf(request);
      const session = await cookieSession(request, attempt);
      if (session) await service.signOut(settings, session, attempt);
      reply.header('set-cookie', cookie(request, SIGN_IN_COOKIE, '', `/portal/${attempt.workspaceId}`, 0));
      return reply.code(204).send(null);
    },

    /** What an app session opened from the portal is minted with. */
    appSessionOf(request: FastifyRequest) {
      const { at, ip, userAgent } = attemptOf(request);
      return { lifetimeSeconds: config.sessionLifetimeSeconds, baseUrl: config.portalUrl, at, origin: { ip, userAgent } };
    },

    /**
     * Starts an OpenID sign-in: a 302 to the provider, what the callback needs sealed in a cookie for 10 minutes.
     * `link`: links the identity to the cookie's signed-in session instead (its id rides sealed).
     */
    async startOidc(request: FastifyRequest, reply: FastifyReply, provider: string, query: { userType?: UserType; link?: boolean }) {
      const attempt = attemptOf(request);
      if (!providers.has(provider)) throw errors.notFound('OpenID provider');
      let linkSessionId: string | undefined;
      if (query.link) {
        const session = await cookieSession(request, attempt);
        if (session?.stage !== 'active') throw errors.unauthorized('Sign in first to link an identity.');
        linkSessionId = session.id;
      }
      const { url, pending } = await providers.start(provider, {
        workspaceId: attempt.workspaceId,
        userType: query.userType ?? 'client',
        ...(linkSessionId ? { linkSessionId } : {}),
        expiresAt: attempt.at + OIDC_PENDING_MS,
      });
      reply.header('set-cookie', cookie(request, OIDC_COOKIE, box.seal(JSON.stringify(pending)), OIDC_PATH, OIDC_PENDING_MS / 1000));
      return reply.redirect(url, 302);
    },

    /**
     * The provider's callback: signs the person in, or links the identity, and redirects to the portal's page for what
     * comes next; a failure redirects to the sign-in page with `?error=` (a start not made here, or too old: 400).
     */
    async finishOidc(request: FastifyRequest, reply: FastifyReply, provider: string) {
      reply.header('cache-control', 'no-store');
      reply.header('set-cookie', cookie(request, OIDC_COOKIE, '', OIDC_PATH, 0)); // used once, whatever happens
      const pending = openPending(cookieOf(request.headers.cookie, OIDC_COOKIE));
      if (!pending || pending.provider !== provider || pending.expiresAt <= clock.now() || !providers.has(provider))
        throw errors.badRequest('This sign-in was not started here, or took longer than 10 minutes: start again.');
      const attempt = attemptOf(request, pending.workspaceId);
      const portal = `/portal/${pending.workspaceId}`;
      const query = request.url.slice(request.url.indexOf('?') + 1);
      try {
        const claims = await providers.finish(pending, query);
        const identity = { provider, ...claims, userType: pending.userType };
        if (pending.linkSessionId) {
          // The session cookie is scoped to /portal/{workspaceId} and never reaches this path: the session that started the
          // link comes sealed in the OpenID cookie (set only for a request that carried it), and must still be active.
          const session = await service.findSessionById(settings, pending.workspaceId, pending.linkSessionId, attempt.at);
          if (session?.stage !== 'active') throw errors.unauthorized('Signed out meanwhile.');
          await service.linkIdentity(settings, session, identity, attempt);
          return reply.redirect(`${portal}/?linked=${encodeURIComponent(provider)}`, 302);
        }
        const view = opened(request, reply, await service.signInWithIdentity(settings, identity, attempt));
        return reply.redirect(`${portal}/${STAGE_PAGES[view.stage]}`, 302);
      } catch (error) {
        request.log.info({ err: error, provider }, 'OpenID sign-in failed');
        const code = error instanceof Error && 'statusCode' in error && error.statusCode === 409 ? 'already_linked' : 'oidc_failed';
        return reply.redirect(`${portal}/${pending.linkSessionId ? '' : 'sign-in'}?error=${code}`, 302);
      }
    },
  };

  /** The sealed pending sign-in, or undefined (none, or not sealed by this server). */
  function openPending(sealed: string | undefined): PendingOidc | undefined {
    try {
      return sealed ? (JSON.parse(box.open(sealed)) as PendingOidc) : undefined;
    } catch {
      return undefined;
    }
  }
}
