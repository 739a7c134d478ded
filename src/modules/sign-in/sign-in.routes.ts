import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { cookieOf } from '../../lib/cookies.js';
import { errors } from '../../lib/errors.js';
import { SecretBox } from '../../lib/secret-box.js';
import { SIGN_IN_COOKIE } from '../../lib/sign-in-sessions.js';
import { ADMIN_WRITE_ERRORS, WorkspaceParams, adminDoc, errorResponses } from '../../lib/schemas.js';
import { OidcProviders, type PendingOidc } from './oidc.js';
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
  Identities,
  OidcStartQuery,
  ProviderParams,
  Providers,
  AppSession,
  InstallParams,
  PortalAppKey,
  RegisteredAppKey,
  TotpEnrolment,
} from './sign-in.schemas.js';
import { openApp, registerAppKey } from './app-sessions.service.js';
import * as service from './sign-in.service.js';
import type { ActiveSession, Attempt, Opened, SignInSettings } from './sign-in.service.js';

const tags = ['sign-in'];
const NoContent = Type.Null({ description: 'no body' });
/** The answer to a request for an e-mailed link: the same whoever the address is (no enumeration). */
const LinkRequested = Type.Object({ message: Type.String() }, { title: 'SignInLinkRequested' });
const LINK_REQUESTED = { message: 'If this e-mail belongs to someone who may sign in here, a link is on its way.' };

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
/** The sealed cookie that carries a started OpenID sign-in to the provider's callback (one path for every workspace). */
const OIDC_COOKIE = 'portal_oidc';
const OIDC_PATH = '/portal/oidc';
const OIDC_PENDING_MS = 10 * 60_000;

/** What both route plugins share: settings, cookies, and a request's attempt. */
async function signInKit(app: FastifyInstance) {
  const { database, clock, config, limitStore, authFailures } = app.ctx;
  const settings: SignInSettings = { database, limitStore, authFailures, portalUrl: config.portalUrl };
  const secure = (request: FastifyRequest) => request.protocol === 'https' || config.portalUrl.startsWith('https:');
  const cookie = (request: FastifyRequest, name: string, value: string, path: string, maxAgeSeconds: number) =>
    `${name}=${value}; Path=${path}; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Lax${secure(request) ? '; Secure' : ''}`;
  const attemptOf = (request: FastifyRequest, workspaceId = (request.params as { workspaceId: string }).workspaceId): Attempt => {
    const userAgent = request.headers['user-agent'];
    return {
      workspaceId,
      at: clock.now(),
      ip: request.ip ?? null,
      userAgent: typeof userAgent === 'string' ? userAgent.slice(0, 512) : null,
    };
  };
  /** Sets the session cookie of a session just opened (its workspace's path) and answers the session. */
  const opened = (request: FastifyRequest, reply: FastifyReply, { token, session }: Opened) => {
    const maxAge = Math.max(0, Math.floor((Date.parse(session.expiresAt) - clock.now()) / 1000));
    reply.header('set-cookie', cookie(request, SIGN_IN_COOKIE, token, `/portal/${session.person.workspaceId}`, maxAge));
    return toView(session);
  };
  const box = new SecretBox(app.ctx.secrets.signIn);
  const providers = new OidcProviders(config.oidcProviders, config.portalUrl);
  return { settings, clock, database, cookie, attemptOf, opened, box, providers };
}

export async function signInRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { settings, database, cookie, attemptOf, opened, box, providers } = await signInKit(app);
  app.decorateRequest('signInSession', null as unknown as ActiveSession);
  const setCookie = (request: FastifyRequest, reply: FastifyReply, value: string, maxAgeSeconds: number) =>
    reply.header('set-cookie', cookie(request, SIGN_IN_COOKIE, value, `/portal/${attemptOf(request).workspaceId}`, maxAgeSeconds));
  const { config, afterResponse } = app.ctx;

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
          'Sets the session cookie. A wrong e-mail or password is the same 401 (and takes as long); 10 guesses for an e-mail, then one more ' +
            'every 90 s (429; each taken before the password is checked, a right one given back), and the address’s failures are limited ' +
            'too; a link by e-mail still signs the person in. Records ' +
            'userLoginSucceeded and, unless a TOTP step is due (`stage`), userLoggedIn; a failure userLoginFailed.',
        ),
        body: PasswordSignIn,
        response: { 200: SignInSession, ...errorResponses(400, 401, 403, 404, 413, 415, 429, 500) },
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
          'Always 202, whether or not the e-mail belongs to someone who may sign in, answered before the address is looked up (the link is ' +
            'e-mailed after). The link works once, for 15 minutes; a newer one or a password change ends it; 5 e-mails to one address, then ' +
            'one more every 12 minutes. Records magicLinkSent.',
        ),
        body: LinkRequest,
        response: { 202: LinkRequested, ...errorResponses(400, 403, 404, 413, 415, 500) },
      },
    },
    async (request, reply) => {
      const input = { ...request.body, userType: request.body.userType ?? 'client' };
      const attempt = attemptOf(request);
      afterResponse.run(reply, 'sign-in link', () => service.sendLink(settings, 'signIn', input, attempt));
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
        response: { 200: SignInSession, ...errorResponses(400, 401, 403, 404, 413, 415, 429, 500) },
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
          'A code of the authenticator (each accepted once) or an unused recovery code, each used once however many requests send it at ' +
            'once; a new session cookie replaces the first step’s. 10 guesses per person, then one more every 90 s (429), apart from the ' +
            'password’s: only whoever passed the first factor uses them. Records userLoggedIn, or userLoginFailed.',
        ),
        ...SIGNED_IN,
        body: CodeBody,
        response: { 200: SignInSession, ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429, 500) },
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
          'Always 202, answered before any work (see requestSignInLink); the link works once, for 30 minutes, and only to reset the ' +
            'password; a password change ends it.',
        ),
        body: LinkRequest,
        response: { 202: LinkRequested, ...errorResponses(400, 403, 404, 413, 415, 500) },
      },
    },
    async (request, reply) => {
      const input = { ...request.body, userType: request.body.userType ?? 'client' };
      const attempt = attemptOf(request);
      afterResponse.run(reply, 'password-reset link', () => service.sendLink(settings, 'passwordReset', input, attempt));
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
          'Every session of the person and every other link e-mailed before end; sign in with the new password. Records passwordReset.',
        ),
        body: PasswordResetCompletion,
        response: { 204: NoContent, ...errorResponses(400, 401, 403, 404, 413, 415, 429, 500) },
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
            'links). Signs the client in, once: of acceptances at once exactly one succeeds. It becomes `active`. Records userLoginSucceeded, ' +
            'userLoggedIn and clientActivated.',
        ),
        body: InviteAcceptance,
        response: { 200: SignInSession, ...errorResponses(400, 401, 403, 404, 413, 415, 429, 500) },
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
            'the account over); 10 wrong ones per person, then one more every 90 s (429), apart from the sign-in’s. The person’s other ' +
            'sessions and every link e-mailed before end. Records passwordChanged.',
        ),
        ...SIGNED_IN,
        body: PasswordChange,
        response: { 204: NoContent, ...errorResponses(400, 401, 403, 404, 413, 415, 429, 500) },
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
        response: { 200: TotpConfirmation, ...errorResponses(400, 401, 403, 404, 409, 413, 415, 500) },
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
        response: { 204: NoContent, ...errorResponses(400, 401, 403, 404, 409, 413, 415, 500) },
      },
    },
    async (request, reply) => {
      await service.disableTotp(settings, request.signInSession, request.body.code, attemptOf(request));
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/sign-in/providers',
    {
      schema: {
        ...route(
          'listSignInProviders',
          'The OpenID providers people may sign in with',
          'Set by the operator (OIDC_PROVIDERS); empty by default.',
        ),
        response: { 200: Providers, ...errorResponses(400, 404, 500) },
      },
    },
    async () => ({ data: providers.list() }),
  );

  app.get(
    '/oidc/:provider/start',
    {
      schema: {
        ...route(
          'startOidcSignIn',
          'Sign in with an OpenID provider (Google, …)',
          'A 302 to the provider (authorization code flow, PKCE S256, state and nonce, kept 10 minutes in a sealed HttpOnly cookie); it sends ' +
            'the person back to PORTAL_URL/portal/oidc/{provider}/callback, which signs them in (an identity not linked yet is linked to the ' +
            'person with the e-mail the provider has verified) and redirects to the portal. `link=true` with a session: links the identity ' +
            'to the signed-in person instead (the session rides sealed in that cookie; it must still be signed in at the callback).',
        ),
        params: ProviderParams,
        querystring: OidcStartQuery,
        response: { 302: NoContent, ...errorResponses(400, 401, 404, 500) },
      },
    },
    async (request, reply) => {
      const attempt = attemptOf(request);
      const { provider } = request.params;
      if (!providers.has(provider)) throw errors.notFound('OpenID provider');
      let linkSessionId: string | undefined;
      if (request.query.link) {
        const token = cookieOf(request.headers.cookie, SIGN_IN_COOKIE);
        const session = token ? await service.findSession(settings, attempt.workspaceId, token, attempt.at) : undefined;
        if (session?.stage !== 'active') throw errors.unauthorized('Sign in first to link an identity.');
        linkSessionId = session.id;
      }
      const { url, pending } = await providers.start(provider, {
        workspaceId: attempt.workspaceId,
        userType: request.query.userType ?? 'client',
        ...(linkSessionId ? { linkSessionId } : {}),
        expiresAt: attempt.at + OIDC_PENDING_MS,
      });
      reply.header('set-cookie', cookie(request, OIDC_COOKIE, box.seal(JSON.stringify(pending)), OIDC_PATH, OIDC_PENDING_MS / 1000));
      return reply.redirect(url, 302);
    },
  );

  app.get(
    '/identities',
    {
      config: { signedIn: 'active' },
      schema: {
        ...route('listLinkedIdentities', 'The signed-in person’s identities at OpenID providers', 'One per provider at most.'),
        ...SIGNED_IN,
        response: { 200: Identities, ...errorResponses(400, 401, 403, 404, 500) },
      },
    },
    async (request) => ({ data: await service.listIdentities(settings, request.signInSession) }),
  );

  app.delete(
    '/identities/:provider',
    {
      config: { signedIn: 'active' },
      schema: {
        ...route(
          'unlinkIdentity',
          'Unlink an identity',
          'The person signs in otherwise from then on (password or e-mailed links). Records googleDelinked for Google.',
        ),
        ...SIGNED_IN,
        params: ProviderParams,
        response: { 204: NoContent, ...errorResponses(400, 401, 403, 404, 500) },
      },
    },
    async (request, reply) => {
      await service.unlinkIdentity(settings, request.signInSession, request.params.provider, attemptOf(request));
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/apps/:installId/session',
    {
      config: { signedIn: 'active' },
      schema: {
        ...route(
          'openApp',
          'Open an installed app as the signed-in person',
          'The session token the portal hands the app’s iframe (`?token=…`): the app’s SDK decrypts it with its key and calls the API as this ' +
            'person (a client in its primary company, or an internal user), exactly as with a token from POST /admin/workspaces/{id}/sessions. ' +
            `It lives ${app.ctx.config.sessionLifetimeSeconds} s (SESSION_LIFETIME_SECONDS) on the workspace’s clock, never past this sign-in: it ` +
            'ends with it, whatever ends it (sign-out, a password change or reset, expiry, idleness, a step-down to the TOTP step). A draft ' +
            'install is a 404 to a client, as on the API. 409 until the operator has given the portal the app’s key ' +
            '(PUT /admin/workspaces/{id}/installs/{installId}/portal-key). Records sessionTokenMinted.',
        ),
        ...SIGNED_IN,
        params: InstallParams,
        response: { 200: AppSession, ...errorResponses(400, 401, 403, 404, 409, 500) },
      },
    },
    async (request) => {
      const { at, ip, userAgent } = attemptOf(request);
      return openApp(database, box, request.signInSession, request.params.installId, {
        lifetimeSeconds: config.sessionLifetimeSeconds,
        baseUrl: config.portalUrl,
        at,
        origin: { ip, userAgent },
      });
    },
  );
}

/** The operator's side: the app key the portal mints signed-in people's app sessions with. */
export async function signInAdminRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const box = new SecretBox(app.ctx.secrets.signIn);
  app.put(
    '/workspaces/:workspaceId/installs/:installId/portal-key',
    {
      schema: {
        ...adminDoc,
        operationId: 'adminSetPortalAppKey',
        summary: 'Give the portal an installed app’s key',
        description:
          'So that signed-in people can open the app (POST /portal/{id}/api/apps/{installId}/session). An active app key of the ' +
          'workspace for the install’s app (else a 400 naming body.apiKey); stored sealed with the server’s secret (a session token is ' +
          'encrypted with the key itself), replaced by a later call, forgotten when the key is revoked.',
        params: InstallParams,
        body: PortalAppKey,
        response: { 200: RegisteredAppKey, ...ADMIN_WRITE_ERRORS },
      },
    },
    async (request) => registerAppKey(app.ctx.database, box, request.caller, request.params.installId, request.body.apiKey),
  );
}

/**
 * Where OpenID providers send people back: PORTAL_URL/portal/oidc/{provider}/callback, the one redirect URI of a
 * provider for every workspace (the sealed cookie names the workspace). Signs the person in, or links the identity,
 * and redirects to the portal's page for what comes next; a failure redirects to the sign-in page with `?error=`.
 */
export async function oidcCallbackRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { settings, clock, cookie, attemptOf, opened, box, providers } = await signInKit(app);
  const STAGE_PAGES = { active: '', mfaRequired: 'totp', mfaEnrolmentRequired: 'enrol-mfa' } as const;

  app.get('/:provider/callback', { schema: { hide: true } }, async (request, reply) => {
    const { provider } = request.params as { provider: string };
    reply.header('cache-control', 'no-store');
    reply.header('set-cookie', cookie(request, OIDC_COOKIE, '', OIDC_PATH, 0)); // used once, whatever happens
    const sealed = cookieOf(request.headers.cookie, OIDC_COOKIE);
    let pending: PendingOidc | undefined;
    try {
      pending = sealed ? (JSON.parse(box.open(sealed)) as PendingOidc) : undefined;
    } catch {
      pending = undefined;
    }
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
  });
}
