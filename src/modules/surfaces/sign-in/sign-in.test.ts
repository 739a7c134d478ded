// Issue 32: people sign in. Invites that land (clientActivated), passwords (Argon2id), e-mailed sign-in and reset
// links (single use, short-lived, each for its own purpose), password change, TOTP with recovery codes, sign-out,
// every event recorded with its actor, source and IP; on both backends.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { base32Decode, hotp, totpStep } from '../../../lib/totp.js';
import {
  APP_ID,
  OTHER_APP_ID,
  adminRequest,
  auditEntries,
  createClient,
  createTestInternalUser,
  populatedWorkspace,
} from '../../../../test/helpers/factories.js';
import { BACKENDS, adminHarness } from '../../../../test/helpers/harness.js';
import { emailCount, lastEmailTo, portalBrowser } from '../../../../test/helpers/portal.js';

const PASSWORD = 'correct horse battery';
const codeAt = (secret: string, ms: number, offsetSteps = 0) => hotp(base32Decode(secret), totpStep(ms) + offsetSteps);

for (const backend of BACKENDS) {
  describe(`sign-in [${backend}]`, () => {
    async function world(t: Parameters<typeof adminHarness>[0]) {
      const h = await adminHarness(t, backend);
      const w = await populatedWorkspace(h);
      const events = async (type?: string) =>
        (await auditEntries(h, w.ws.workspaceId)).filter((e) =>
          type ? e.event_type === type : /^(user|password|magic|client(Activated|Invited)|workspaceMfa)/.test(e.event_type),
        );
      return { h, ...w, events, browser: () => portalBrowser(h, w.ws.workspaceId) };
    }

    /** A client invited through the API, and the token of its invite link. */
    async function invited(w: Awaited<ReturnType<typeof world>>, email = 'grace@acme.test') {
      const res = await w.h.as(w.ws.apiKey, {
        method: 'POST',
        url: '/v1/clients?sendInvite=true',
        payload: { email, givenName: 'Grace', familyName: 'H', companyId: w.company.id },
      });
      assert.equal(res.statusCode, 200, res.body);
      const client = res.json();
      const url = new URL(client.inviteUrl);
      w.h.clock.advance(1000); // what follows is after the invite (e-mails and events in order)
      return { client, token: url.hash.slice(1), url };
    }

    test('an invite lands: its link (e-mailed too) accepts with a password, the client becomes active (clientActivated), signs out and in again', async (t) => {
      const w = await world(t);
      const { client, token, url } = await invited(w);
      assert.equal(url.pathname, `/portal/${w.ws.workspaceId}/invite`, 'the page that accepts it');
      const mail = await lastEmailTo(w.h, w.ws.workspaceId, 'grace@acme.test');
      assert.equal(mail.token, token, 'the same link went out by e-mail');
      const browser = w.browser();
      const accepted = await browser.call('POST', '/invites/accept', { token, password: PASSWORD }, { 'user-agent': 'test-browser' });
      assert.equal(accepted.statusCode, 200, accepted.body);
      assert.deepEqual(
        [accepted.json().stage, accepted.json().method, accepted.json().user.id, accepted.json().user.type],
        ['active', 'invite', client.id, 'client'],
      );
      const cookie = accepted.headers['set-cookie'] as string;
      assert.match(
        cookie,
        new RegExp(`^portal_session=[A-Za-z0-9_-]{43}; Path=/portal/${w.ws.workspaceId}; Max-Age=43200; HttpOnly; SameSite=Lax$`),
      );
      assert.equal(accepted.headers['cache-control'], 'no-store');
      const seen = await w.h.as(w.ws.apiKey, { method: 'GET', url: `/v1/clients/${client.id}` });
      assert.deepEqual([seen.json().status, seen.json().firstLoginDate], ['active', new Date(w.h.clock.now()).toISOString()]);
      assert.equal((await browser.call('GET', '/session')).json().user.email, 'grace@acme.test');
      // The link is spent: the same token again is refused.
      assert.equal((await w.browser().call('POST', '/invites/accept', { token })).statusCode, 401);

      w.h.clock.advance(1000);
      assert.equal((await browser.call('DELETE', '/session')).statusCode, 204);
      assert.equal(browser.cookie, '');
      w.h.clock.advance(1000);
      const again = await browser.call('POST', '/sign-in/password', { email: 'GRACE@acme.test', password: PASSWORD });
      assert.equal(again.statusCode, 200, again.body);
      assert.equal(again.json().method, 'password');
      const recorded = (await w.events()).map((e) => [e.event_type, e.source, e.actor_id, e.actor_type, e.ip]);
      // In order of time, then of name.
      assert.deepEqual(recorded, [
        ['clientInvited', 'platform', null, null, '127.0.0.1'],
        ['clientActivated', 'web', client.id, 'clientUser', '127.0.0.1'],
        ['userLoggedIn', 'web', client.id, 'clientUser', '127.0.0.1'],
        ['userLoginSucceeded', 'web', client.id, 'clientUser', '127.0.0.1'],
        ['userLoggedOut', 'web', client.id, 'clientUser', '127.0.0.1'],
        ['userLoggedIn', 'web', client.id, 'clientUser', '127.0.0.1'],
        ['userLoginSucceeded', 'web', client.id, 'clientUser', '127.0.0.1'],
      ]);
      const activated = (await w.events('clientActivated'))[0];
      assert.equal(activated.user_agent, 'test-browser');
    });

    test('an invite expires after 7 days; sent again, the old link is refused and the new one works without a password', async (t) => {
      const w = await world(t);
      const first = await invited(w);
      w.h.clock.advance(7 * 24 * 3600_000);
      const late = await w.browser().call('POST', '/invites/accept', { token: first.token });
      assert.equal(late.statusCode, 401);
      assert.match(late.json().message, /expired/);
      const resent = await w.h.as(w.ws.apiKey, { method: 'POST', url: `/v1/clients/${first.client.id}/invite` });
      assert.equal(resent.statusCode, 200, resent.body);
      assert.equal(resent.json().status, 'invited');
      const token = new URL(resent.json().inviteUrl).hash.slice(1);
      assert.notEqual(token, first.token);
      assert.equal((await w.browser().call('POST', '/invites/accept', { token: first.token })).statusCode, 401, 'the old link');
      const browser = w.browser();
      const accepted = await browser.call('POST', '/invites/accept', { token });
      assert.equal(accepted.statusCode, 200, accepted.body);
      const again = await w.h.as(w.ws.apiKey, { method: 'POST', url: `/v1/clients/${first.client.id}/invite` });
      assert.equal(again.statusCode, 409, 'an active client needs no invite');
      // No password was set: a password sign-in fails like a wrong one.
      const password = await w.browser().call('POST', '/sign-in/password', { email: 'grace@acme.test', password: PASSWORD });
      assert.deepEqual([password.statusCode, password.json().message], [401, 'Wrong e-mail or password.']);
    });

    test('a sign-in link works once, within 15 minutes, and only to sign in; a newer one replaces it', async (t) => {
      const w = await world(t);
      const { token: invite } = await invited(w);
      await w.browser().call('POST', '/invites/accept', { token: invite, password: PASSWORD });
      const ask = () => w.browser().call('POST', '/sign-in/link', { email: 'grace@acme.test' });
      w.h.clock.advance(1000);
      assert.equal((await ask()).statusCode, 202);
      const first = await lastEmailTo(w.h, w.ws.workspaceId, 'grace@acme.test');
      assert.equal(first.url, `${w.h.app.ctx.config.portalUrl}/portal/${w.ws.workspaceId}/magic-link`);
      const browser = w.browser();
      const signedIn = await browser.call('POST', '/sign-in/link/redeem', { token: first.token });
      assert.deepEqual([signedIn.statusCode, signedIn.json().method], [200, 'magicLink']);
      assert.equal((await w.browser().call('POST', '/sign-in/link/redeem', { token: first.token })).statusCode, 401, 'used once');
      // A sign-in link never resets a password.
      w.h.clock.advance(1000);
      await ask();
      const second = await lastEmailTo(w.h, w.ws.workspaceId, 'grace@acme.test');
      const reset = await w.browser().call('POST', '/password-resets/complete', { token: second.token, password: 'another long password' });
      assert.equal(reset.statusCode, 401);
      // A newer link replaces it, and a link expires.
      w.h.clock.advance(1000);
      await ask();
      const third = await lastEmailTo(w.h, w.ws.workspaceId, 'grace@acme.test');
      assert.equal((await w.browser().call('POST', '/sign-in/link/redeem', { token: second.token })).statusCode, 401, 'replaced');
      w.h.clock.advance(15 * 60_000);
      assert.equal((await w.browser().call('POST', '/sign-in/link/redeem', { token: third.token })).statusCode, 401, 'expired');
      assert.equal((await w.events('magicLinkSent')).length, 3);
    });

    test('a session opened by a link cannot change a set password without the current one (Invoice Ninja #6408); a change ends the other sessions', async (t) => {
      const w = await world(t);
      const { token: invite } = await invited(w);
      const first = w.browser();
      await first.call('POST', '/invites/accept', { token: invite, password: PASSWORD });
      await w.browser().call('POST', '/sign-in/link', { email: 'grace@acme.test' });
      const viaLink = w.browser();
      await viaLink.call('POST', '/sign-in/link/redeem', { token: (await lastEmailTo(w.h, w.ws.workspaceId, 'grace@acme.test')).token });
      const without = await viaLink.call('PUT', '/password', { newPassword: 'attacker chosen password' });
      assert.equal(without.statusCode, 400);
      assert.deepEqual(without.json().data, [{ path: 'body.currentPassword', message: 'is required to change a password' }]);
      const wrong = await viaLink.call('PUT', '/password', { currentPassword: 'not it at all', newPassword: 'attacker chosen password' });
      assert.deepEqual([wrong.statusCode, wrong.json().data[0].path], [400, 'body.currentPassword']);
      const changed = await viaLink.call('PUT', '/password', { currentPassword: PASSWORD, newPassword: 'a brand new password' });
      assert.equal(changed.statusCode, 204, changed.body);
      assert.equal((await viaLink.call('GET', '/session')).statusCode, 200, 'the session that changed it stays');
      assert.equal((await first.call('GET', '/session')).statusCode, 401, 'the others end');
      const old = await w.browser().call('POST', '/sign-in/password', { email: 'grace@acme.test', password: PASSWORD });
      assert.equal(old.statusCode, 401);
      assert.equal((await w.events('passwordChanged')).length, 1);
      const tooShort = await viaLink.call('PUT', '/password', { currentPassword: 'a brand new password', newPassword: 'short' });
      assert.deepEqual([tooShort.statusCode, tooShort.json().data[0].path], [400, 'body.newPassword']);
    });

    test('a password reset link sets a new password once, ends every session (passwordReset), and signs nobody in', async (t) => {
      const w = await world(t);
      const { token: invite } = await invited(w);
      const before = w.browser();
      await before.call('POST', '/invites/accept', { token: invite, password: PASSWORD });
      assert.equal((await w.browser().call('POST', '/password-resets', { email: 'grace@acme.test' })).statusCode, 202);
      const mail = await lastEmailTo(w.h, w.ws.workspaceId, 'grace@acme.test');
      assert.equal(mail.subject, 'Reset your password');
      assert.equal(mail.url, `${w.h.app.ctx.config.portalUrl}/portal/${w.ws.workspaceId}/reset-password`);
      // Not a sign-in link either.
      assert.equal((await w.browser().call('POST', '/sign-in/link/redeem', { token: mail.token })).statusCode, 401);
      const done = await w.browser().call('POST', '/password-resets/complete', { token: mail.token, password: 'the new long password' });
      assert.equal(done.statusCode, 204, done.body);
      assert.equal(done.headers['set-cookie'], undefined);
      assert.equal((await before.call('GET', '/session')).statusCode, 401);
      assert.equal(
        (await w.browser().call('POST', '/password-resets/complete', { token: mail.token, password: 'yet another password' })).statusCode,
        401,
      );
      const signIn = await w.browser().call('POST', '/sign-in/password', { email: 'grace@acme.test', password: 'the new long password' });
      assert.equal(signIn.statusCode, 200);
      assert.deepEqual(
        (await w.events('passwordReset')).map((e) => [e.actor_id, e.source]),
        [[(await w.events('clientActivated'))[0].actor_id, 'web']],
      );
    });

    test('TOTP: enrolled with a confirmed code and ten recovery codes; sign-in stops at the code step; each code and recovery code works once', async (t) => {
      const w = await world(t);
      const { token: invite } = await invited(w);
      const browser = w.browser();
      await browser.call('POST', '/invites/accept', { token: invite, password: PASSWORD });
      const begun = await browser.call('POST', '/mfa/totp');
      assert.equal(begun.statusCode, 200, begun.body);
      const { secret, otpauthUri } = begun.json();
      assert.match(otpauthUri, /^otpauth:\/\/totp\/Portal:grace%40acme\.test\?secret=[A-Z2-7]{32}&issuer=Portal/);
      const wrong = await browser.call('POST', '/mfa/totp/confirm', {
        code: '000000' === codeAt(secret, w.h.clock.now()) ? '111111' : '000000',
      });
      assert.equal(wrong.statusCode, 400);
      const confirmed = await browser.call('POST', '/mfa/totp/confirm', { code: codeAt(secret, w.h.clock.now()) });
      assert.equal(confirmed.statusCode, 200, confirmed.body);
      const { recoveryCodes } = confirmed.json();
      assert.equal(recoveryCodes.length, 10);
      assert.equal(confirmed.json().session.mfaEnabled, true);
      const stored = await w.h.app.ctx.db
        .selectFrom('sign_in_credentials')
        .select(['recovery_code_hashes', 'password_hash'])
        .executeTakeFirstOrThrow();
      assert.ok(!stored.recovery_code_hashes?.includes(recoveryCodes[0].replace('-', '')), 'codes kept only as hashes');
      assert.match(stored.password_hash ?? '', /^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);

      w.h.clock.advance(60_000);
      const next = w.browser();
      const first = await next.call('POST', '/sign-in/password', { email: 'grace@acme.test', password: PASSWORD });
      assert.deepEqual([first.statusCode, first.json().stage], [200, 'mfaRequired']);
      assert.match(first.headers['set-cookie'] as string, /Max-Age=600;/);
      assert.equal(
        (await next.call('PUT', '/password', { currentPassword: PASSWORD, newPassword: 'x'.repeat(12) })).statusCode,
        403,
        'nothing else before the code',
      );
      const halfCookie = next.cookie;
      assert.equal((await next.call('POST', '/sign-in/totp', { code: codeAt(secret, w.h.clock.now(), 3) })).statusCode, 401);
      const code = codeAt(secret, w.h.clock.now());
      const passed = await next.call('POST', '/sign-in/totp', { code });
      assert.deepEqual([passed.statusCode, passed.json().stage], [200, 'active']);
      assert.notEqual(next.cookie, halfCookie, 'a new session: the first step’s cookie opens nothing');
      const stale = portalBrowser(w.h, w.ws.workspaceId);
      stale.cookie = halfCookie;
      assert.equal((await stale.call('GET', '/session')).statusCode, 401);
      // The same code is not accepted twice (another sign-in in the same 30 s).
      const replay = w.browser();
      await replay.call('POST', '/sign-in/password', { email: 'grace@acme.test', password: PASSWORD });
      assert.equal((await replay.call('POST', '/sign-in/totp', { code })).statusCode, 401, 'replayed');
      const recovered = await replay.call('POST', '/sign-in/totp', { code: recoveryCodes[0].toUpperCase() });
      assert.equal(recovered.statusCode, 200, 'a recovery code, case and dash aside');
      const reuse = w.browser();
      await reuse.call('POST', '/sign-in/password', { email: 'grace@acme.test', password: PASSWORD });
      assert.equal((await reuse.call('POST', '/sign-in/totp', { code: recoveryCodes[0] })).statusCode, 401, 'a recovery code works once');
      const failures = (await w.events('userLoginFailed')).map((e) => e.context.reason);
      assert.deepEqual(failures, ['wrongCode', 'wrongCode', 'wrongCode']);
      // Off again with a current code.
      w.h.clock.advance(60_000);
      assert.equal((await next.call('POST', '/mfa/totp/disable', { code: codeAt(secret, w.h.clock.now()) })).statusCode, 204);
      const plain = await w.browser().call('POST', '/sign-in/password', { email: 'grace@acme.test', password: PASSWORD });
      assert.equal(plain.json().stage, 'active');
    });

    test('an internal user signs in; removed by the operator, its session is refused on the next request', async (t) => {
      const w = await world(t);
      const admin = await createTestInternalUser(w.h, w.ws.workspaceId, {
        email: 'boss@acme.test',
        givenName: 'B',
        familyName: 'O',
        role: 'admin',
      });
      assert.ok(admin.id);
      // Staff get their first password by a reset link (they are not invited like clients).
      await w.browser().call('POST', '/password-resets', { email: w.user.email, userType: 'internalUser' });
      const { token } = await lastEmailTo(w.h, w.ws.workspaceId, w.user.email);
      await w.browser().call('POST', '/password-resets/complete', { token, password: PASSWORD });
      const browser = w.browser();
      const signedIn = await browser.call('POST', '/sign-in/password', {
        email: w.user.email,
        password: PASSWORD,
        userType: 'internalUser',
      });
      assert.deepEqual([signedIn.statusCode, signedIn.json().user.role], [200, 'staff']);
      const asClient = await w.browser().call('POST', '/sign-in/password', { email: w.user.email, password: PASSWORD });
      assert.equal(asClient.statusCode, 401, 'a client of that e-mail there is not');
      const removed = await adminRequest(w.h, 'DELETE', `/admin/workspaces/${w.ws.workspaceId}/internal-users/${w.user.id}`);
      assert.equal(removed.statusCode, 200, removed.body);
      assert.equal((await browser.call('GET', '/session')).statusCode, 401);
      const left = await w.h.app.ctx.db.selectFrom('sign_in_sessions').select('id').execute();
      assert.deepEqual(left, [], 'its sessions went with it');
    });

    test('a workspace that requires TOTP of its staff: the next sign-in enrols one before anything else; it cannot be turned off; events', async (t) => {
      const w = await world(t);
      const policy = (required: boolean) =>
        adminRequest(w.h, 'PATCH', `/admin/workspaces/${w.ws.workspaceId}`, { staffMfaRequired: required });
      const on = await policy(true);
      assert.deepEqual([on.statusCode, on.json().staffMfaRequired], [200, true]);
      assert.equal((await policy(true)).statusCode, 200, 'unchanged: no second event');
      await w.browser().call('POST', '/password-resets', { email: w.user.email, userType: 'internalUser' });
      const { token } = await lastEmailTo(w.h, w.ws.workspaceId, w.user.email);
      await w.browser().call('POST', '/password-resets/complete', { token, password: PASSWORD });
      const browser = w.browser();
      const first = await browser.call('POST', '/sign-in/password', { email: w.user.email, password: PASSWORD, userType: 'internalUser' });
      assert.deepEqual([first.statusCode, first.json().stage], [200, 'mfaEnrolmentRequired']);
      assert.equal((await browser.call('PUT', '/password', { currentPassword: PASSWORD, newPassword: 'y'.repeat(12) })).statusCode, 403);
      const { secret } = (await browser.call('POST', '/mfa/totp')).json();
      const before = browser.cookie;
      const confirmed = await browser.call('POST', '/mfa/totp/confirm', { code: codeAt(secret, w.h.clock.now()) });
      assert.deepEqual([confirmed.statusCode, confirmed.json().session.stage], [200, 'active']);
      assert.notEqual(browser.cookie, before, 'a new session once enrolled');
      w.h.clock.advance(60_000);
      const off = await browser.call('POST', '/mfa/totp/disable', { code: codeAt(secret, w.h.clock.now()) });
      assert.equal(off.statusCode, 409);
      // A client is not staff: the policy does not reach it.
      const { token: invite } = await invited(w);
      assert.equal((await w.browser().call('POST', '/invites/accept', { token: invite, password: PASSWORD })).json().stage, 'active');
      w.h.clock.advance(1000);
      await policy(false);
      const recorded = (await w.events()).filter((e) => e.event_type.startsWith('workspaceMfa')).map((e) => [e.event_type, e.source]);
      assert.deepEqual(recorded, [
        ['workspaceMfaEnabled', 'system'],
        ['workspaceMfaDisabled', 'system'],
      ]);
    });

    test('a signed-in person opens an installed app: the SDK session token for that person, once the operator gave the portal the app key', async (t) => {
      const w = await world(t);
      const install = (
        await adminRequest(w.h, 'POST', `/admin/workspaces/${w.ws.workspaceId}/installs`, { type: 'custom', name: 'Docs', appId: APP_ID })
      ).json();
      const { token: invite, client } = await invited(w);
      const browser = w.browser();
      const browserSession = (await browser.call('POST', '/invites/accept', { token: invite, password: PASSWORD })).json();
      const early = await browser.call('POST', `/apps/${install.id}/session`);
      assert.deepEqual([early.statusCode, early.json().code], [409, 'conflict']);
      const keyPath = `/admin/workspaces/${w.ws.workspaceId}/installs/${install.id}/portal-key`;
      const otherApp = await w.h.appKey(w.ws.workspaceId, OTHER_APP_ID);
      const wrong = await w.h.app.inject({
        method: 'PUT',
        url: keyPath,
        headers: { authorization: `Bearer ${w.h.adminToken}` },
        payload: { apiKey: otherApp.apiKey },
      });
      assert.deepEqual([wrong.statusCode, wrong.json().data[0].path], [400, 'body.apiKey'], 'another app’s key');
      const given = await w.h.app.inject({
        method: 'PUT',
        url: keyPath,
        headers: { authorization: `Bearer ${w.h.adminToken}` },
        payload: { apiKey: w.app.apiKey },
      });
      assert.deepEqual([given.statusCode, given.json()], [200, { installId: install.id, apiKeyId: w.app.apiKeyId }]);
      const stored = await w.h.app.ctx.db.selectFrom('portal_app_keys').select('sealed_key').executeTakeFirstOrThrow();
      assert.ok(!stored.sealed_key.includes(w.app.apiKey), 'the key is stored sealed');
      const opened = await browser.call('POST', `/apps/${install.id}/session`);
      assert.equal(opened.statusCode, 200, opened.body);
      const { token, tokenId, expiresAt } = opened.json();
      // Its lifetime (SESSION_LIFETIME_SECONDS, 24 h), but never past the sign-in's 12 h (issue 42, point 3).
      assert.equal(expiresAt, Math.floor(Date.parse(browserSession.expiresAt) / 1000));
      // The app's SDK reads who it acts for from the token, with its own key.
      const { assemblyApi } = await import('@assembly-js/node-sdk');
      const payload = await assemblyApi({ apiKey: w.app.apiKey, token }).getTokenPayload?.();
      assert.deepEqual(JSON.parse(JSON.stringify(payload)), {
        workspaceId: w.ws.workspaceId,
        clientId: client.id,
        companyId: w.company.id,
        tokenId,
        baseUrl: w.h.app.ctx.config.portalUrl,
      });
      // And the API answers it as that client.
      const seen = await w.h.as(`${w.ws.workspaceId}/${w.app.apiKey}/${tokenId}`, { method: 'GET', url: '/v1/clients?limit=10' });
      assert.deepEqual(
        seen.json().data.map((c: { id: string }) => c.id),
        [client.id],
      );
      assert.equal(
        (await portalBrowser(w.h, w.ws.workspaceId).call('POST', `/apps/${install.id}/session`)).statusCode,
        401,
        'signed in only',
      );
    });

    test('another workspace: its cookie, links and invites open nothing here; an unknown workspace is a 404', async (t) => {
      const w = await world(t);
      const other = await populatedWorkspace(w.h, 'Other');
      const res = await w.h.as(other.ws.apiKey, {
        method: 'POST',
        url: '/v1/clients?sendInvite=true',
        payload: { email: 'grace@acme.test', givenName: 'G', familyName: 'H', companyId: other.company.id },
      });
      const token = new URL(res.json().inviteUrl).hash.slice(1);
      assert.equal((await w.browser().call('POST', '/invites/accept', { token })).statusCode, 401, 'another workspace’s invite');
      const there = portalBrowser(w.h, other.ws.workspaceId);
      assert.equal((await there.call('POST', '/invites/accept', { token })).statusCode, 200);
      const here = w.browser();
      here.cookie = there.cookie;
      assert.equal((await here.call('GET', '/session')).statusCode, 401, 'another workspace’s cookie');
      const unknown = await portalBrowser(w.h, '00000000-0000-4000-8000-000000000000').call('POST', '/sign-in/link', { email: 'a@b.c' });
      assert.equal(unknown.statusCode, 404);
      assert.equal(await emailCount(w.h, w.ws.workspaceId, 'grace@acme.test'), 0);
    });

    test('the portal shows its workspace before anyone signs in: its name and colour (the set one, else its derived one)', async (t) => {
      const w = await world(t);
      const derived = await w.browser().call('GET', '/workspace');
      assert.equal(derived.statusCode, 200);
      const { brandColor, ...rest } = derived.json();
      assert.deepEqual(rest, { object: 'portalWorkspace', id: w.ws.workspaceId, name: 'Acme' });
      assert.match(brandColor, /^#[0-9a-f]{6}$/);
      const set = await w.h.app.inject({
        method: 'PATCH',
        url: `/admin/workspaces/${w.ws.workspaceId}`,
        headers: { authorization: `Bearer ${w.h.adminToken}` },
        payload: { name: 'Acme Ltd', brandColor: '#123456' },
      });
      assert.equal(set.statusCode, 200, set.body);
      assert.deepEqual((await w.browser().call('GET', '/workspace')).json(), {
        object: 'portalWorkspace',
        id: w.ws.workspaceId,
        name: 'Acme Ltd',
        brandColor: '#123456',
      });
      const unknown = await portalBrowser(w.h, '00000000-0000-4000-8000-000000000000').call('GET', '/workspace');
      assert.equal(unknown.statusCode, 404);
    });

    test('a client never invited has no portal: no link is sent, and the answer is the same as for an unknown e-mail', async (t) => {
      const w = await world(t);
      await createClient(w.h, w.ws.apiKey, { email: 'quiet@acme.test', givenName: 'Q', familyName: 'Q', companyId: w.company.id });
      const known = await w.browser().call('POST', '/sign-in/link', { email: 'quiet@acme.test' });
      const unknown = await w.browser().call('POST', '/sign-in/link', { email: 'nobody@acme.test' });
      assert.equal(known.statusCode, 202);
      assert.deepEqual([unknown.statusCode, unknown.body], [known.statusCode, known.body]);
      assert.deepEqual(known.json(), { message: 'If this e-mail belongs to someone who may sign in here, a link is on its way.' });
      assert.equal(await emailCount(w.h, w.ws.workspaceId, 'quiet@acme.test'), 0);
    });
  });
}
