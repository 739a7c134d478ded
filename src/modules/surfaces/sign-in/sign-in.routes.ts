import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { SecretBox } from '../../../lib/secret-box.js';
import { ADMIN_WRITE_ERRORS, WorkspaceParams, adminDoc, errorResponses } from '../../../lib/schemas.js';
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
  LogoParams,
  PortalAppKey,
  PortalWorkspace,
  RegisteredAppKey,
  TotpEnrolment,
} from './sign-in.schemas.js';
import { openApp, registerAppKey } from './app-sessions.service.js';
import { profileRoutes } from './profile.routes.js';
import { signInHttp, toView, withUserType } from './sign-in.http.js';
import * as service from './sign-in.service.js';

const tags = ['sign-in'];
const NoContent = Type.Null({ description: 'no body' });
/** An image's bytes, as sent. */
const LogoBytes = Type.Unsafe<Buffer>({ type: 'string', format: 'binary' });
/** The answer to a request for an e-mailed link: the same whoever the address is (no enumeration). */
const LinkRequested = Type.Object({ message: Type.String() }, { title: 'SignInLinkRequested' });

/**
 * The sign-in API a portal front end calls, under /portal/{workspaceId}/api: cookie sessions for browsers. Every
 * request that changes anything must carry `X-Portal-Request: 1` and, when the browser sends an Origin, come from
 * this service's own; answers are never cached (plugins/portal-session.ts). The workspace, and the session a route
 * needs (`config.signedIn`, then `request.signInSession`), are found by plugins/portal-sign-in.ts.
 */
export async function signInRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const http = signInHttp(app);
  const { settings, attemptOf, opened } = http;

  const route = (operationId: string, summary: string, description: string) => ({
    tags,
    security: [],
    operationId,
    summary,
    description,
    params: WorkspaceParams,
  });
  const SIGNED_IN = { security: [{ portalSession: [] }] };

  // The person's own profile and pictures: a scope of their own, for its image bodies.
  await app.register(profileRoutes);

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
      opened(request, reply, await service.signInWithPassword(settings, withUserType(request.body), attemptOf(request))),
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
    async (request, reply) => http.sendLinkAfter(request, reply, 'signIn', request.body),
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
    async (request, reply) => http.sendLinkAfter(request, reply, 'passwordReset', request.body),
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
    async (request, reply) => http.signOut(request, reply),
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
    async (request, reply) =>
      http.confirmed(
        request,
        reply,
        await service.confirmTotpEnrolment(settings, request.signInSession, request.body.code, attemptOf(request)),
      ),
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
    '/workspace',
    {
      schema: {
        ...route(
          'retrievePortalWorkspace',
          'The workspace whose portal this is',
          'Its name and colour, shown on every portal page, the sign-in pages included: no session needed. (`GET /v1/workspaces` ' +
            'answers a client session 404, as the hosted API does.)',
        ),
        response: { 200: PortalWorkspace, ...errorResponses(400, 404, 500) },
      },
    },
    async (request) => service.portalWorkspace(app.ctx.database, request.params.workspaceId),
  );

  app.get(
    '/workspace/logo/:hash',
    {
      schema: {
        ...route(
          'retrievePortalWorkspaceLogo',
          'The workspace’s logo',
          'The image the operator set (`PUT /admin/workspaces/{id}/logo`), at the path `logoUrl` names: its type as read from its ' +
            "bytes (PNG, JPEG, WebP or GIF), `X-Content-Type-Options: nosniff`, `Content-Security-Policy: default-src 'none'`, and " +
            'cached for good (`Cache-Control: public, max-age=31536000, immutable`: a new logo has a new path). A path naming an ' +
            'older logo, or another workspace’s, is a 404; no session needed (its e-mails show it too).',
        ),
        params: LogoParams,
        response: {
          200: {
            description: 'the image',
            content: Object.fromEntries(
              ['image/png', 'image/jpeg', 'image/webp', 'image/gif'].map((type) => [type, { schema: LogoBytes }]),
            ),
          },
          ...errorResponses(400, 404, 500),
        },
      },
    },
    async (request, reply) => {
      const { workspaceId, hash } = request.params;
      const logo = await service.portalLogoImage(app.ctx.database, workspaceId, hash);
      return reply
        .type(logo.contentType)
        .header('cache-control', 'public, max-age=31536000, immutable')
        .header('x-content-type-options', 'nosniff')
        .header('content-security-policy', "default-src 'none'")
        .send(logo.bytes);
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
    async () => ({ data: http.providers.list() }),
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
    async (request, reply) => http.startOidc(request, reply, request.params.provider, request.query),
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
    async (request) => openApp(settings.database, http.box, request.signInSession, request.params.installId, http.appSessionOf(request)),
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
  const http = signInHttp(app);
  app.get<{ Params: { provider: string } }>('/:provider/callback', { schema: { hide: true } }, async (request, reply) =>
    http.finishOidc(request, reply, request.params.provider),
  );
}
