// Rule (issue 42, point 3): an app session opened from the portal (POST /portal/{id}/api/apps/{installId}/session)
// ends when the sign-in session that opened it ends, by any cause — sign-out, a password change made from another
// session, a password reset, the sign-in's expiry or idleness, its stepping down when the workspace starts requiring
// TOTP of staff (point 10) — at once on this process and within AUTH_CACHE_TTL_MS on another; it never outlives it.
// Rule (issue 42, point 8): a client cannot open a draft install's app (the API hides drafts from clients): 404, as the API.
// Rule (issue 42, point 9): in a sandbox whose test clock was advanced, an app session's expiry is on the workspace's
// clock, the one it is checked against: it is born alive.
// Rule (issue 42, point 7): the portal's mint is recorded as the person's act (sessionTokenMinted, source web).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { base32Decode, hotp, totpStep } from '../../../lib/totp.js';
import { APP_ID, adminRequest, auditEntries, createClient, createCompany, populatedWorkspace } from '../../../../test/helpers/factories.js';
import { heldWithin } from '../../../../test/helpers/eventually.js';
import { BACKENDS, type Harness, adminHarness, freshDatabaseUrl } from '../../../../test/helpers/harness.js';
import { type PortalBrowser, lastEmailTo, portalBrowser } from '../../../../test/helpers/portal.js';

const PASSWORD = 'correct horse battery';
const MINUTE = 60_000;
const UNAUTHORIZED = { code: 'unauthorized', message: 'Missing, unknown, revoked or expired credentials.', data: null };
const codeAt = (secret: string, ms: number) => hotp(base32Decode(secret), totpStep(ms));

/** An app install of the workspace whose key the operator gave the portal: its id. */
async function portalApp(h: Harness, workspaceId: string, appKey: string, draft = false): Promise<string> {
  const created = await adminRequest(h, 'POST', `/admin/workspaces/${workspaceId}/installs`, {
    type: 'custom',
    name: 'Docs',
    appId: APP_ID,
    ...(draft ? { draft } : {}),
  });
  assert.equal(created.statusCode, 200, created.body);
  const installId = created.json().id as string;
  const given = await h.app.inject({
    method: 'PUT',
    url: `/admin/workspaces/${workspaceId}/installs/${installId}/portal-key`,
    headers: { authorization: `Bearer ${h.adminToken}` },
    payload: { apiKey: appKey },
  });
  assert.equal(given.statusCode, 200, given.body);
  return installId;
}

/** A client invited through the API that accepted with PASSWORD: its browser, signed in. */
async function signedInClient(h: Harness, workspaceId: string, apiKey: string, companyId: string, email = 'grace@acme.test') {
  const res = await h.as(apiKey, {
    method: 'POST',
    url: '/v1/clients?sendInvite=true',
    payload: { email, givenName: 'Grace', familyName: 'H', companyId },
  });
  assert.equal(res.statusCode, 200, res.body);
  const browser = portalBrowser(h, workspaceId);
  const accepted = await browser.call('POST', '/invites/accept', {
    token: new URL(res.json().inviteUrl).hash.slice(1),
    password: PASSWORD,
  });
  assert.equal(accepted.statusCode, 200, accepted.body);
  return { browser, clientId: res.json().id as string, signIn: accepted.json() as { id: string; expiresAt: string } };
}

for (const backend of BACKENDS) {
  describe(`app sessions opened from the portal [${backend}]`, () => {
    async function world(t: Parameters<typeof adminHarness>[0], h?: Harness) {
      const harness = h ?? (await adminHarness(t, backend));
      const w = await populatedWorkspace(harness);
      const installId = await portalApp(harness, w.ws.workspaceId, w.app.apiKey);
      const grace = await signedInClient(harness, w.ws.workspaceId, w.ws.apiKey, w.company.id);
      /** Opens the app on `browser`: the X-API-KEY of its session, and the answer. */
      const open = async (browser: PortalBrowser) => {
        const res = await browser.call('POST', `/apps/${installId}/session`);
        assert.equal(res.statusCode, 200, res.body);
        return {
          key: `${w.ws.workspaceId}/${w.app.apiKey}/${res.json().tokenId}`,
          ...(res.json() as { tokenId: string; expiresAt: number }),
        };
      };
      /** What the app gets calling the API with the session: the status and body. */
      const use = async (key: string, on: Harness = harness) => {
        const res = await on.as(key, { method: 'GET', url: `/v1/clients/${grace.clientId}` });
        return [res.statusCode, res.statusCode === 200 ? res.json().id : res.json()];
      };
      const alive = (): [number, unknown] => [200, grace.clientId];
      return { h: harness, ...w, installId, grace, open, use, alive };
    }

    test('sign-out ends it at once; it never lives past the sign-in (its expiresAt); the mint is the person’s act', async (t) => {
      const w = await world(t);
      const app = await w.open(w.grace.browser);
      assert.equal(app.expiresAt, Math.floor(Date.parse(w.grace.signIn.expiresAt) / 1000), 'the sign-in ends first (12 h < 24 h)');
      assert.deepEqual(await w.use(app.key), w.alive());
      const minted = (await auditEntries(w.h, w.ws.workspaceId)).filter((e) => e.event_type === 'sessionTokenMinted');
      assert.deepEqual(
        minted.map((e) => [e.source, e.actor_id, e.actor_type, e.context.tokenId, e.context.signInSessionId]),
        [['web', w.grace.clientId, 'clientUser', app.tokenId, w.grace.signIn.id]],
      );
      assert.equal((await w.grace.browser.call('DELETE', '/session')).statusCode, 204);
      assert.deepEqual(await w.use(app.key), [401, UNAUTHORIZED]);
    });

    test('a password change ends the app sessions of the person’s other sign-ins, not those of the one that changed it', async (t) => {
      const w = await world(t);
      const elsewhere = await w.open(w.grace.browser);
      const here = portalBrowser(w.h, w.ws.workspaceId);
      assert.equal((await here.call('POST', '/sign-in/password', { email: 'grace@acme.test', password: PASSWORD })).statusCode, 200);
      const mine = await w.open(here);
      assert.deepEqual(await w.use(elsewhere.key), w.alive());
      const changed = await here.call('PUT', '/password', { currentPassword: PASSWORD, newPassword: 'another good password' });
      assert.equal(changed.statusCode, 204, changed.body);
      assert.deepEqual(await w.use(elsewhere.key), [401, UNAUTHORIZED]);
      assert.deepEqual(await w.use(mine.key), w.alive());
    });

    test('a password reset ends them', async (t) => {
      const w = await world(t);
      const app = await w.open(w.grace.browser);
      assert.deepEqual(await w.use(app.key), w.alive());
      w.h.clock.advance(1000); // its e-mail after the invite's
      await portalBrowser(w.h, w.ws.workspaceId).call('POST', '/password-resets', { email: 'grace@acme.test' });
      const { token } = await lastEmailTo(w.h, w.ws.workspaceId, 'grace@acme.test');
      const reset = await portalBrowser(w.h, w.ws.workspaceId).call('POST', '/password-resets/complete', {
        token,
        password: 'a new password',
      });
      assert.equal(reset.statusCode, 204, reset.body);
      assert.deepEqual(await w.use(app.key), [401, UNAUTHORIZED]);
    });

    test('the sign-in’s idleness (30 minutes without a portal request) and its expiry (12 hours) end them', async (t) => {
      const w = await world(t);
      const idle = await w.open(w.grace.browser);
      w.h.clock.advance(29 * MINUTE);
      assert.deepEqual(await w.use(idle.key), w.alive(), 'the app’s own requests do not keep the sign-in alive');
      w.h.clock.advance(MINUTE);
      assert.deepEqual(await w.use(idle.key), [401, UNAUTHORIZED]);
      assert.equal((await w.grace.browser.call('GET', '/session')).statusCode, 401, 'the sign-in is over too');

      const again = await signedInClient(w.h, w.ws.workspaceId, w.ws.apiKey, w.company.id, 'hal@acme.test');
      const lasting = await w.open(again.browser);
      const end = Date.parse(again.signIn.expiresAt);
      // Kept alive by the portal every 20 minutes (at most 36 requests) until a minute before the sign-in expires.
      for (let i = 0; i < 36 && w.h.clock.now() + 21 * MINUTE < end; i++) {
        w.h.clock.advance(20 * MINUTE);
        assert.equal((await again.browser.call('GET', '/session')).statusCode, 200);
      }
      w.h.clock.advance(end - MINUTE - w.h.clock.now());
      assert.equal((await again.browser.call('GET', '/session')).statusCode, 200);
      const use = (key: string) => w.h.as(key, { method: 'GET', url: `/v1/clients/${again.clientId}` });
      assert.equal((await use(lasting.key)).statusCode, 200);
      w.h.clock.advance(MINUTE);
      const expired = await use(lasting.key);
      assert.deepEqual([expired.statusCode, expired.json()], [401, UNAUTHORIZED]);
    });

    test('another server process refuses it within AUTH_CACHE_TTL_MS (1 s) of the sign-out', async (t) => {
      const databaseUrl = await freshDatabaseUrl(t, backend, { sqliteFile: true });
      const one = await adminHarness(t, backend, { databaseUrl });
      const two = await adminHarness(t, backend, { databaseUrl, clock: one.clock });
      const w = await world(t, one);
      const app = await w.open(w.grace.browser);
      assert.deepEqual(await w.use(app.key, two), w.alive(), 'verified, and cached, by the other process');
      assert.equal((await w.grace.browser.call('DELETE', '/session')).statusCode, 204);
      assert.deepEqual(await w.use(app.key, one), [401, UNAUTHORIZED], 'this process at once');
      await heldWithin(1000, 'the other process refuses it', async () => (await w.use(app.key, two))[0] === 401);
      assert.deepEqual(await w.use(app.key, two), [401, UNAUTHORIZED]);
    });

    test('point 10: a staff session open when the workspace starts requiring TOTP steps down to enrolment, its app session ends', async (t) => {
      const w = await world(t);
      await portalBrowser(w.h, w.ws.workspaceId).call('POST', '/password-resets', { email: w.user.email, userType: 'internalUser' });
      const { token } = await lastEmailTo(w.h, w.ws.workspaceId, w.user.email);
      await portalBrowser(w.h, w.ws.workspaceId).call('POST', '/password-resets/complete', { token, password: PASSWORD });
      const staff = portalBrowser(w.h, w.ws.workspaceId);
      const signedIn = await staff.call('POST', '/sign-in/password', { email: w.user.email, password: PASSWORD, userType: 'internalUser' });
      assert.equal(signedIn.json().stage, 'active');
      const app = await w.open(staff);
      const me = async () => {
        const res = await w.h.as(app.key, { method: 'GET', url: '/v1/me' });
        return [res.statusCode, res.statusCode === 200 ? 'ok' : res.json()];
      };
      assert.deepEqual(await me(), [200, 'ok']);

      const on = await adminRequest(w.h, 'PATCH', `/admin/workspaces/${w.ws.workspaceId}`, { staffMfaRequired: true });
      assert.equal(on.statusCode, 200, on.body);
      assert.deepEqual(await me(), [401, UNAUTHORIZED]);
      const session = await staff.call('GET', '/session');
      assert.deepEqual([session.statusCode, session.json().stage, session.json().id], [200, 'mfaEnrolmentRequired', signedIn.json().id]);
      const refused = await staff.call('POST', `/apps/${w.installId}/session`);
      assert.deepEqual([refused.statusCode, refused.json().message], [403, 'Finish signing in first (the TOTP step).']);
      // The client's sign-in is not staff's: untouched.
      assert.equal((await w.grace.browser.call('GET', '/session')).json().stage, 'active');

      // Enrolling, as a fresh sign-in would, opens a new active session; the stepped-down one is over.
      const { secret } = (await staff.call('POST', '/mfa/totp')).json();
      const stepped = staff.cookie;
      const confirmed = await staff.call('POST', '/mfa/totp/confirm', { code: codeAt(secret, w.h.clock.now()) });
      assert.deepEqual([confirmed.statusCode, confirmed.json().session.stage], [200, 'active']);
      assert.notEqual(staff.cookie, stepped);
      const old = portalBrowser(w.h, w.ws.workspaceId);
      old.cookie = stepped;
      assert.equal((await old.call('GET', '/session')).statusCode, 401);
      const reopened = await w.open(staff);
      const res = await w.h.as(reopened.key, { method: 'GET', url: '/v1/me' });
      assert.equal(res.statusCode, 200, res.body);
    });

    test('point 8: a draft install is a 404 to a client, as the API answers; published, it opens', async (t) => {
      const w = await world(t);
      const draft = await portalApp(w.h, w.ws.workspaceId, w.app.apiKey, true);
      const refused = await w.grace.browser.call('POST', `/apps/${draft}/session`);
      const { key } = await w.open(w.grace.browser);
      const api = await w.h.as(key, { method: 'GET', url: `/v1/installs/${draft}` });
      assert.deepEqual([refused.statusCode, refused.json()], [404, api.json()]);
      assert.deepEqual(api.json(), { code: 'not_found', message: 'Install not found.', data: null });
      const minted = await w.h.app.ctx.db.selectFrom('sessions').select('id').execute();
      assert.equal(minted.length, 1, 'no session was minted for the draft');
      const published = await adminRequest(w.h, 'POST', `/admin/workspaces/${w.ws.workspaceId}/installs/${draft}/publish`);
      assert.equal(published.statusCode, 200, published.body);
      assert.equal((await w.grace.browser.call('POST', `/apps/${draft}/session`)).statusCode, 200);
    });

    test('point 9: in a sandbox whose test clock was advanced two days, the app session is born alive, its expiry on that clock', async (t) => {
      const h = await adminHarness(t, backend);
      const ws = await h.workspace('Sandbox', undefined, true);
      const app = await h.appKey(ws.workspaceId, APP_ID);
      const advanced = await h.as(ws.apiKey, { method: 'POST', url: '/v1/test-clock/advance', payload: { bySeconds: 2 * 86_400 } });
      assert.equal(advanced.statusCode, 200, advanced.body);
      const offsetMs = 2 * 86_400_000;
      const company = await createCompany(h, ws.apiKey, { name: 'Sandbox Co' });
      await createClient(h, ws.apiKey, { email: 'sid@sandbox.test', givenName: 'S', familyName: 'B', companyId: company.id });
      const installId = await portalApp(h, ws.workspaceId, app.apiKey);
      const grace = await signedInClient(h, ws.workspaceId, ws.apiKey, company.id);
      const opened = await grace.browser.call('POST', `/apps/${installId}/session`);
      assert.equal(opened.statusCode, 200, opened.body);
      // The sign-in's 12 hours, on the workspace's clock (before its 24 h lifetime).
      assert.equal(opened.json().expiresAt, Math.floor((Date.parse(grace.signIn.expiresAt) + offsetMs) / 1000));
      const key = `${ws.workspaceId}/${app.apiKey}/${opened.json().tokenId}`;
      const seen = await h.as(key, { method: 'GET', url: `/v1/clients/${grace.clientId}` });
      assert.deepEqual([seen.statusCode, seen.json().id], [200, grace.clientId]);
      const row = await h.app.ctx.db.selectFrom('sessions').select('created_at').executeTakeFirstOrThrow();
      assert.equal(row.created_at, new Date(h.clock.now() + offsetMs).toISOString(), 'minted at the workspace’s time');
    });
  });
}
