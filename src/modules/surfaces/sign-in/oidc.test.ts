// Issue 32: Sign in with Google as standard OpenID Connect, against a real OpenID provider started here (panva's
// certified oidc-provider): the code flow with PKCE, state and nonce; the first sign-in links the identity to the
// person with the verified e-mail, later ones find it by subject; nobody else gets in (no sign-up); linking and
// unlinking while signed in (googleDelinked); a TOTP step still applies. Both backends.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { auditEntries, populatedWorkspace } from '../../../../test/helpers/factories.js';
import { BACKENDS, adminHarness } from '../../../../test/helpers/harness.js';
import { CookieJar, type OidcTestAccount, followToCallback, startOidcProvider } from '../../../../test/helpers/oidc-provider.js';
import { portalBrowser } from '../../../../test/helpers/portal.js';
import type { Harness } from '../../../../test/helpers/types.js';

const PORTAL_URL = 'http://portal.test';
const REDIRECT_URI = `${PORTAL_URL}/portal/oidc/google/callback`;

for (const backend of BACKENDS) {
  describe(`Sign in with Google (OpenID Connect) [${backend}]`, () => {
    async function world(t: Parameters<typeof adminHarness>[0]) {
      const op = await startOidcProvider({
        clients: [{ clientId: 'portal', clientSecret: 'portal-secret', redirectUris: [REDIRECT_URI] }],
      });
      t.after(() => op.close());
      const h = await adminHarness(t, backend, {
        env: {
          PORTAL_URL,
          OIDC_PROVIDERS: 'google',
          OIDC_GOOGLE_ISSUER: op.issuer,
          OIDC_GOOGLE_CLIENT_ID: 'portal',
          OIDC_GOOGLE_CLIENT_SECRET: 'portal-secret',
        },
      });
      const w = await populatedWorkspace(h);
      const invite = await h.as(w.ws.apiKey, {
        method: 'POST',
        url: '/v1/clients?sendInvite=true',
        payload: { email: 'grace@acme.test', givenName: 'Grace', familyName: 'H', companyId: w.company.id },
      });
      h.clock.advance(1000);
      return { h, op, ...w, grace: invite.json() };
    }

    /**
     * A browser signing in with the provider: the portal's start (a 302 to the provider, the sealed cookie), the
     * provider's hops, then the portal's callback. The browser's cookie jar sends each cookie only under its Path, as
     * a browser does (issue 42, point 10: the session cookie's /portal/{id} never reaches /portal/oidc/…/callback);
     * `session` puts a session cookie in it first, as signing in left it; `beforeCallback` runs while at the provider.
     */
    async function withGoogle(
      h: Harness,
      workspaceId: string,
      op: { signInNext(a: OidcTestAccount | null): void },
      account: OidcTestAccount | null,
      options: { session?: string; query?: string; beforeCallback?: () => Promise<void> } = {},
    ) {
      op.signInNext(account);
      const jar = new CookieJar();
      if (options.session) jar.storeLines([`portal_session=${options.session}; Path=/portal/${workspaceId}; HttpOnly; SameSite=Lax`]);
      const visit = async (path: string) => {
        const res = await h.app.inject({ method: 'GET', url: path, headers: { cookie: jar.header(new URL(path, PORTAL_URL)) } });
        jar.storeLines([res.headers['set-cookie'] ?? []].flat().map(String));
        return res;
      };
      const start = await visit(`/portal/${workspaceId}/api/oidc/google/start${options.query ?? ''}`);
      assert.equal(start.statusCode, 302, start.body);
      const pending = String(start.headers['set-cookie']);
      assert.match(pending, /^portal_oidc=v1:[^;]+; Path=\/portal\/oidc; Max-Age=600; HttpOnly; SameSite=Lax$/);
      const callback = await followToCallback(new URL(String(start.headers.location)), REDIRECT_URI);
      await options.beforeCallback?.();
      assert.doesNotMatch(jar.header(callback), /portal_session=/, 'the session cookie is not sent to the callback');
      return visit(`${callback.pathname}${callback.search}`);
    }
    const sessionOf = (res: LightMyRequestResponse) =>
      /^portal_session=([^;]+)/.exec(String([res.headers['set-cookie']].flat().find((c) => String(c).startsWith('portal_session='))))?.[1];

    test('the first sign-in links the identity to the person with the verified e-mail and activates the client; later ones find it by subject', async (t) => {
      const { h, op, ws, grace } = await world(t);
      const providers = await portalBrowser(h, ws.workspaceId).call('GET', '/sign-in/providers');
      assert.deepEqual(providers.json(), { data: [{ id: 'google', name: 'Google' }] });
      const first = await withGoogle(h, ws.workspaceId, op, { sub: 'g-1', email: 'Grace@acme.test' });
      assert.equal(first.statusCode, 302, first.body);
      assert.equal(first.headers.location, `/portal/${ws.workspaceId}/`);
      const session = sessionOf(first);
      assert.ok(session, 'a session cookie');
      const browser = portalBrowser(h, ws.workspaceId);
      browser.cookie = session;
      const me = await browser.call('GET', '/session');
      assert.deepEqual([me.json().method, me.json().user.id], ['oidc', grace.id]);
      assert.deepEqual((await browser.call('GET', '/identities')).json().data, [
        { provider: 'google', email: 'Grace@acme.test', createdAt: new Date(h.clock.now()).toISOString() },
      ]);
      // The e-mail at Google changed since: the subject still finds her.
      h.clock.advance(1000);
      const again = await withGoogle(h, ws.workspaceId, op, { sub: 'g-1', email: 'grace.h@elsewhere.test', emailVerified: false });
      assert.equal(again.headers.location, `/portal/${ws.workspaceId}/`);
      const events = (await auditEntries(h, ws.workspaceId))
        .filter((e) => e.source === 'web')
        .map((e) => [e.event_type, e.actor_id, e.context.method ?? null]);
      assert.deepEqual(events, [
        ['clientActivated', grace.id, null],
        ['userLoggedIn', grace.id, 'oidc'],
        ['userLoginSucceeded', grace.id, 'oidc'],
        ['userLoggedIn', grace.id, 'oidc'],
        ['userLoginSucceeded', grace.id, 'oidc'],
      ]);
    });

    test('no sign-up: an unverified or unknown e-mail, a cancelled sign-in and a replayed callback sign nobody in', async (t) => {
      const { h, op, ws } = await world(t);
      const refused = `/portal/${ws.workspaceId}/sign-in?error=oidc_failed`;
      const unverified = await withGoogle(h, ws.workspaceId, op, { sub: 'g-2', email: 'grace@acme.test', emailVerified: false });
      assert.deepEqual([unverified.statusCode, unverified.headers.location, sessionOf(unverified)], [302, refused, undefined]);
      const stranger = await withGoogle(h, ws.workspaceId, op, { sub: 'g-3', email: 'stranger@acme.test' });
      assert.deepEqual([stranger.headers.location, sessionOf(stranger)], [refused, undefined]);
      const cancelled = await withGoogle(h, ws.workspaceId, op, null);
      assert.deepEqual([cancelled.headers.location, sessionOf(cancelled)], [refused, undefined]);
      // Without the sealed cookie (another browser, or a forged callback): nothing happens.
      op.signInNext({ sub: 'g-1', email: 'grace@acme.test' });
      const start = await h.app.inject({ method: 'GET', url: `/portal/${ws.workspaceId}/api/oidc/google/start` });
      const callback = await followToCallback(new URL(String(start.headers.location)), REDIRECT_URI);
      const forged = await h.app.inject({ method: 'GET', url: `${callback.pathname}${callback.search}` });
      assert.equal(forged.statusCode, 400);
      const failures = (await auditEntries(h, ws.workspaceId)).filter((e) => e.event_type === 'userLoginFailed');
      assert.deepEqual(
        failures.map((e) => [e.actor_id, e.context.reason]),
        [
          [null, 'unknownIdentity'],
          [null, 'unknownIdentity'],
        ],
      );
      assert.equal((await portalBrowser(h, ws.workspaceId).call('GET', '/sign-in/providers')).statusCode, 200);
      const unknown = await h.app.inject({ method: 'GET', url: `/portal/${ws.workspaceId}/api/oidc/acme/start` });
      assert.equal(unknown.statusCode, 404);
    });

    // Rule (issue 42, point 10): linking works in a browser, whose session cookie never reaches the callback's path: the
    // session that started the link comes sealed in the OpenID cookie, and must still be signed in when the provider answers.
    test('a signed-in person links Google, then unlinks it (googleDelinked); a second link of one Google account is refused', async (t) => {
      const { h, op, ws } = await world(t);
      // Grace accepts her invite (a password-less link sign-in), then links Google under another e-mail.
      const inviteMail = await h.app.ctx.db
        .selectFrom('email_outbox')
        .select('text_body')
        .where('to_address', '=', 'grace@acme.test')
        .executeTakeFirstOrThrow();
      const token = /#([A-Za-z0-9_-]+)/.exec(inviteMail.text_body)?.[1];
      const browser = portalBrowser(h, ws.workspaceId);
      assert.equal((await browser.call('POST', '/invites/accept', { token })).statusCode, 200);
      const linked = await withGoogle(
        h,
        ws.workspaceId,
        op,
        { sub: 'g-9', email: 'grace.personal@gmail.test' },
        { session: browser.cookie, query: '?link=true' },
      );
      assert.equal(linked.headers.location, `/portal/${ws.workspaceId}/?linked=google`);
      assert.equal((await browser.call('GET', '/identities')).json().data[0].email, 'grace.personal@gmail.test');
      const signIn = await withGoogle(h, ws.workspaceId, op, { sub: 'g-9', email: 'grace.personal@gmail.test' });
      assert.equal(signIn.headers.location, `/portal/${ws.workspaceId}/`, 'signs her in by that subject');
      const twice = await withGoogle(
        h,
        ws.workspaceId,
        op,
        { sub: 'g-10', email: 'x@gmail.test' },
        { session: browser.cookie, query: '?link=true' },
      );
      assert.equal(twice.headers.location, `/portal/${ws.workspaceId}/?error=already_linked`);
      h.clock.advance(1000);
      assert.equal((await browser.call('DELETE', '/identities/google')).statusCode, 204);
      assert.equal((await browser.call('DELETE', '/identities/google')).statusCode, 404);
      assert.deepEqual((await browser.call('GET', '/identities')).json().data, []);
      const after = await withGoogle(h, ws.workspaceId, op, { sub: 'g-9', email: 'grace.personal@gmail.test' });
      assert.equal(
        after.headers.location,
        `/portal/${ws.workspaceId}/sign-in?error=oidc_failed`,
        'unlinked: that account no longer signs her in',
      );
      const delinked = (await auditEntries(h, ws.workspaceId)).filter((e) => e.event_type === 'googleDelinked');
      assert.equal(delinked.length, 1);
      assert.equal(delinked[0].source, 'web');
      // A link whose session signed out while at the provider links nothing.
      h.clock.advance(1000);
      const late = await withGoogle(
        h,
        ws.workspaceId,
        op,
        { sub: 'g-11', email: 'late@gmail.test' },
        {
          session: browser.cookie,
          query: '?link=true',
          beforeCallback: async () => assert.equal((await browser.call('DELETE', '/session')).statusCode, 204),
        },
      );
      assert.equal(late.headers.location, `/portal/${ws.workspaceId}/?error=oidc_failed`);
      assert.equal(
        await h.app.ctx.db.selectFrom('sign_in_identities').select('id').where('subject', '=', 'g-11').executeTakeFirst(),
        undefined,
      );
      // Linking needs a session.
      const anonymous = await h.app.inject({ method: 'GET', url: `/portal/${ws.workspaceId}/api/oidc/google/start?link=true` });
      assert.equal(anonymous.statusCode, 401);
    });
  });
}
