// Issue 32, point 5: sign-in held to OWASP ASVS level 2 (authentication and session management), attacked: answers
// that do not tell whether an e-mail exists; failed guesses limited per account and per address without letting a
// stranger lock the owner out; secrets stored as hashes only; CSRF and session fixation closed; a link redeemed by
// many requests at once opens one session; idle and absolute expiry; sign-out and removal end a session on every
// server sharing the database. Both backends.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { base32Decode, hotp, totpStep } from '../src/lib/totp.js';
import { adminRequest, populatedWorkspace } from './helpers/factories.js';
import { BACKENDS, adminHarness, twoServersOnOneDatabase } from './helpers/harness.js';
import { emailCount, lastEmailTo, portalBrowser } from './helpers/portal.js';
import type { Harness } from './helpers/types.js';

const PASSWORD = 'correct horse battery';
const codeAt = (secret: string, ms: number, offsetSteps = 0) => hotp(base32Decode(secret), totpStep(ms) + offsetSteps);

/** A client invited and accepted with PASSWORD: signed in by `browser`. */
async function activeClient(
  h: Pick<Harness, 'app' | 'as' | 'clock'>,
  ws: { workspaceId: string; apiKey: string },
  companyId: string,
  email: string,
) {
  const res = await h.as(ws.apiKey, {
    method: 'POST',
    url: '/v1/clients?sendInvite=true',
    payload: { email, givenName: 'G', familyName: 'H', companyId },
  });
  const token = new URL(res.json().inviteUrl).hash.slice(1);
  const browser = portalBrowser(h, ws.workspaceId);
  const accepted = await browser.call('POST', '/invites/accept', { token, password: PASSWORD });
  assert.equal(accepted.statusCode, 200, accepted.body);
  h.clock.advance(1000);
  return { id: res.json().id as string, browser };
}

for (const backend of BACKENDS) {
  describe(`sign-in under attack [${backend}]`, () => {
    test('no enumeration: an unknown e-mail, a client never invited and a wrong password get the same answer', async (t) => {
      const h = await adminHarness(t, backend);
      const w = await populatedWorkspace(h);
      await activeClient(h, w.ws, w.company.id, 'grace@acme.test');
      const browser = portalBrowser(h, w.ws.workspaceId);
      const answers = [];
      for (const email of ['grace@acme.test', 'nobody@acme.test', w.client.email]) {
        const res = await browser.call('POST', '/sign-in/password', { email, password: 'wrong but long enough' });
        answers.push([res.statusCode, res.body, res.headers['set-cookie']]);
      }
      assert.deepEqual(
        answers,
        Array(3).fill([401, '{"code":"unauthorized","message":"Wrong e-mail or password.","data":null}', undefined]),
      );
      const reasons = (
        await h.app.ctx.db.selectFrom('audit_log').select(['context', 'actor_id']).where('event_type', '=', 'userLoginFailed').execute()
      ).map((r) => [JSON.parse(r.context).reason, r.actor_id !== null]);
      assert.deepEqual(reasons.sort(), [
        ['unknownAccount', false],
        ['unknownAccount', false],
        ['wrongPassword', true],
      ]);
    });

    test('ten wrong passwords for one account, from ten addresses, hold it at 429 even with the right one; an e-mailed link still signs the owner in', async (t) => {
      const h = await adminHarness(t, backend);
      const w = await populatedWorkspace(h);
      await activeClient(h, w.ws, w.company.id, 'grace@acme.test');
      const from = (i: number) => ({ remoteAddress: `203.0.113.${i}` });
      const attempt = (password: string, i: number) =>
        h.app.inject({
          method: 'POST',
          url: `/portal/${w.ws.workspaceId}/api/sign-in/password`,
          headers: { 'x-portal-request': '1' },
          payload: { email: 'grace@acme.test', password },
          ...from(i),
        });
      for (let i = 0; i < 10; i++) assert.equal((await attempt('wrong but long enough', i)).statusCode, 401);
      const held = await attempt(PASSWORD, 50);
      assert.equal(held.statusCode, 429);
      assert.equal(held.headers['retry-after'], '90');
      // The same limit for an e-mail nobody has: the 429 tells nothing either.
      for (let i = 0; i < 10; i++)
        await h.app.inject({
          method: 'POST',
          url: `/portal/${w.ws.workspaceId}/api/sign-in/password`,
          headers: { 'x-portal-request': '1' },
          payload: { email: 'ghost@acme.test', password: 'wrong but long enough' },
          ...from(100 + i),
        });
      const ghost = await h.app.inject({
        method: 'POST',
        url: `/portal/${w.ws.workspaceId}/api/sign-in/password`,
        headers: { 'x-portal-request': '1' },
        payload: { email: 'ghost@acme.test', password: PASSWORD },
        ...from(120),
      });
      assert.equal(ghost.statusCode, 429);
      // The owner is not locked out: a link by e-mail works.
      const owner = portalBrowser(h, w.ws.workspaceId);
      assert.equal((await owner.call('POST', '/sign-in/link', { email: 'grace@acme.test' })).statusCode, 202);
      const { token } = await lastEmailTo(h, w.ws.workspaceId, 'grace@acme.test');
      assert.equal((await owner.call('POST', '/sign-in/link/redeem', { token })).statusCode, 200);
      // And guesses come back with time: one every 90 s.
      h.clock.advance(90_000);
      assert.equal((await attempt(PASSWORD, 51)).statusCode, 200);
    });

    // Rule (issue 42, point 2): second-factor guesses (TOTP and recovery codes) and a signed-in person's password
    // change have buckets of their own, which only whoever passed the first factor (or is signed in) can drain: ten
    // wrong passwords by a stranger never make the owner's right code, recovery code or password change answer 429.
    test('a stranger’s ten wrong passwords never make the owner’s TOTP code, recovery code or password change answer 429', async (t) => {
      const h = await adminHarness(t, backend);
      const w = await populatedWorkspace(h);
      const { browser: owner } = await activeClient(h, w.ws, w.company.id, 'grace@acme.test');
      const { secret } = (await owner.call('POST', '/mfa/totp')).json();
      const confirmed = await owner.call('POST', '/mfa/totp/confirm', { code: codeAt(secret, h.clock.now()) });
      assert.equal(confirmed.statusCode, 200, confirmed.body);
      const { recoveryCodes } = confirmed.json();
      h.clock.advance(60_000);
      // Two first factors passed before the stranger starts (a half session each), and one by link after.
      const halves = [portalBrowser(h, w.ws.workspaceId), portalBrowser(h, w.ws.workspaceId)];
      for (const half of halves) {
        const first = await half.call('POST', '/sign-in/password', { email: 'grace@acme.test', password: PASSWORD });
        assert.deepEqual([first.statusCode, first.json().stage], [200, 'mfaRequired']);
      }
      const stranger = (i: number) =>
        h.app.inject({
          method: 'POST',
          url: `/portal/${w.ws.workspaceId}/api/sign-in/password`,
          headers: { 'x-portal-request': '1' },
          payload: { email: 'grace@acme.test', password: 'wrong but long enough' },
          remoteAddress: `203.0.113.${i}`,
        });
      const statuses = [];
      for (let i = 0; i < 11; i++) statuses.push((await stranger(i)).statusCode);
      assert.deepEqual(statuses, [...Array(10).fill(401), 429], 'the password bucket is empty');
      const code = await halves[0].call('POST', '/sign-in/totp', { code: codeAt(secret, h.clock.now()) });
      assert.deepEqual([code.statusCode, code.json().stage], [200, 'active'], code.body);
      const recovered = await halves[1].call('POST', '/sign-in/totp', { code: recoveryCodes[0] });
      assert.deepEqual([recovered.statusCode, recovered.json().stage], [200, 'active'], recovered.body);
      const byLink = portalBrowser(h, w.ws.workspaceId);
      await byLink.call('POST', '/sign-in/link', { email: 'grace@acme.test' });
      const { token } = await lastEmailTo(h, w.ws.workspaceId, 'grace@acme.test');
      assert.equal((await byLink.call('POST', '/sign-in/link/redeem', { token })).json().stage, 'mfaRequired');
      const second = await byLink.call('POST', '/sign-in/totp', { code: recoveryCodes[1] });
      assert.equal(second.statusCode, 200, second.body);
      const changed = await halves[0].call('PUT', '/password', { currentPassword: PASSWORD, newPassword: 'a brand new password' });
      assert.equal(changed.statusCode, 204, changed.body);
    });

    test('the second factor’s guesses are limited per person: ten wrong codes, then 429 even for the right one, across half sessions', async (t) => {
      const h = await adminHarness(t, backend);
      const w = await populatedWorkspace(h);
      const { browser: owner } = await activeClient(h, w.ws, w.company.id, 'grace@acme.test');
      const { secret } = (await owner.call('POST', '/mfa/totp')).json();
      await owner.call('POST', '/mfa/totp/confirm', { code: codeAt(secret, h.clock.now()) });
      h.clock.advance(60_000);
      const half = async () => {
        const b = portalBrowser(h, w.ws.workspaceId);
        await b.call('POST', '/sign-in/password', { email: 'grace@acme.test', password: PASSWORD });
        return b;
      };
      const wrong = codeAt(secret, h.clock.now(), 5);
      const statuses = [];
      for (let i = 0; i < 10; i++) statuses.push((await (await half()).call('POST', '/sign-in/totp', { code: wrong })).statusCode);
      assert.deepEqual(statuses, Array(10).fill(401));
      const held = await (await half()).call('POST', '/sign-in/totp', { code: codeAt(secret, h.clock.now()) });
      assert.deepEqual([held.statusCode, held.headers['retry-after']], [429, '90'], 'a new half session brings no new guesses');
      // The password's own bucket is untouched: the owner's right password still passes the first factor.
      assert.equal((await half()).cookie.length > 0, true);
    });

    // Rule (issue 42, point 5): a password change ends the links sent before it.
    test('a password change ends outstanding reset and sign-in links', async (t) => {
      const h = await adminHarness(t, backend);
      const w = await populatedWorkspace(h);
      const { browser: owner } = await activeClient(h, w.ws, w.company.id, 'grace@acme.test');
      const other = portalBrowser(h, w.ws.workspaceId);
      await other.call('POST', '/password-resets', { email: 'grace@acme.test' });
      const reset = (await lastEmailTo(h, w.ws.workspaceId, 'grace@acme.test')).token;
      await other.call('POST', '/sign-in/link', { email: 'grace@acme.test' });
      const signIn = (await lastEmailTo(h, w.ws.workspaceId, 'grace@acme.test')).token;
      h.clock.advance(1000);
      const changed = await owner.call('PUT', '/password', { currentPassword: PASSWORD, newPassword: 'a brand new password' });
      assert.equal(changed.statusCode, 204, changed.body);
      const invalid =
        '{"code":"unauthorized","message":"This link is not valid: it has expired, been used, or been replaced by a newer one.","data":null}';
      const late = await other.call('POST', '/password-resets/complete', { token: reset, password: 'the attacker’s password' });
      assert.deepEqual([late.statusCode, late.body], [401, invalid]);
      const redeemed = await other.call('POST', '/sign-in/link/redeem', { token: signIn });
      assert.deepEqual([redeemed.statusCode, redeemed.body, redeemed.headers['set-cookie']], [401, invalid, undefined]);
      assert.equal((await owner.call('GET', '/session')).statusCode, 200, 'the owner’s session stays');
      const signedIn = await other.call('POST', '/sign-in/password', { email: 'grace@acme.test', password: 'a brand new password' });
      assert.equal(signedIn.statusCode, 200, 'the new password is the one in force');
    });

    // Rule (issue 42, point 6): a link request answers before any work (the lookup, the limit, the writes run after the
    // response), so its time tells nothing of the address. Checked by taking the people's tables away: a request that
    // looked the address up before answering would fail; each answers the same 202, known address or not.
    test('link requests answer 202 before they look the address up: the same answer, known or not, even with no table to look in', async (t) => {
      const h = await adminHarness(t, backend);
      const w = await populatedWorkspace(h);
      await activeClient(h, w.ws, w.company.id, 'grace@acme.test');
      const { db, afterResponse } = h.app.ctx;
      const rename = async (from: string, to: string) => {
        for (const table of ['clients', 'internal_users'])
          await sql`alter table ${sql.raw(table + from)} rename to ${sql.raw(table + to)}`.execute(db);
      };
      const requests = [
        ['/sign-in/link', 'grace@acme.test'],
        ['/sign-in/link', 'nobody@acme.test'],
        ['/password-resets', 'grace@acme.test'],
        ['/password-resets', 'nobody@acme.test'],
      ] as const;
      const invited = await emailCount(h, w.ws.workspaceId, 'grace@acme.test'); // the invite
      await rename('', '_away');
      const answers = [];
      try {
        for (const [path, email] of requests) {
          const res = await portalBrowser(h, w.ws.workspaceId).call('POST', path, { email });
          answers.push([res.statusCode, res.body, res.headers['content-type']]);
        }
        await afterResponse.settled(); // the work after the answers found no table (logged)
      } finally {
        await rename('_away', '');
      }
      const accepted = [
        202,
        '{"message":"If this e-mail belongs to someone who may sign in here, a link is on its way."}',
        'application/json; charset=utf-8',
      ];
      assert.deepEqual(answers, Array(4).fill(accepted));
      assert.equal(await emailCount(h, w.ws.workspaceId, 'grace@acme.test'), invited);
      // With the tables back, the same requests: the same answers, and the work after them sends the known address its links.
      for (const [path, email] of requests) {
        h.clock.advance(1000); // e-mails in order
        const res = await portalBrowser(h, w.ws.workspaceId).call('POST', path, { email });
        assert.deepEqual([res.statusCode, res.body, res.headers['content-type']], accepted);
      }
      const mail = await lastEmailTo(h, w.ws.workspaceId, 'grace@acme.test');
      assert.deepEqual([mail.count, mail.subject], [invited + 2, 'Reset your password']);
      assert.equal(await emailCount(h, w.ws.workspaceId, 'nobody@acme.test'), 0);
    });

    test('one address guessing across many accounts is held at 429 after AUTH_FAILURES_PER_MINUTE failures; others are not', async (t) => {
      const h = await adminHarness(t, backend, { env: { AUTH_FAILURES_PER_MINUTE: '5' } });
      const w = await populatedWorkspace(h);
      await activeClient(h, w.ws, w.company.id, 'grace@acme.test');
      const guess = (email: string, remoteAddress: string, password = 'wrong but long enough') =>
        h.app.inject({
          method: 'POST',
          url: `/portal/${w.ws.workspaceId}/api/sign-in/password`,
          headers: { 'x-portal-request': '1' },
          payload: { email, password },
          remoteAddress,
        });
      const statuses = [];
      for (let i = 0; i < 7; i++) statuses.push((await guess(`user${i}@acme.test`, '198.51.100.7')).statusCode);
      assert.deepEqual(statuses, [401, 401, 401, 401, 401, 429, 429]);
      assert.equal((await guess('grace@acme.test', '198.51.100.8', PASSWORD)).statusCode, 200, 'another address signs in');
      assert.equal(
        (await guess('grace@acme.test', '198.51.100.7', PASSWORD)).statusCode,
        200,
        'the right password is never refused for the address alone',
      );
    });

    test('secrets are stored as hashes only: the session cookie, links, the invite token and the password', async (t) => {
      const h = await adminHarness(t, backend);
      const w = await populatedWorkspace(h);
      const { browser } = await activeClient(h, w.ws, w.company.id, 'grace@acme.test');
      await portalBrowser(h, w.ws.workspaceId).call('POST', '/sign-in/link', { email: 'grace@acme.test' });
      const { token } = await lastEmailTo(h, w.ws.workspaceId, 'grace@acme.test');
      const tables = ['sign_in_sessions', 'sign_in_links', 'sign_in_credentials', 'clients'] as const;
      const dump = JSON.stringify(await Promise.all(tables.map((table) => h.app.ctx.db.selectFrom(table).selectAll().execute())));
      for (const secret of [browser.cookie, token, PASSWORD]) assert.ok(secret && !dump.includes(secret), 'not stored as is');
    });

    test('CSRF: a change without X-Portal-Request, or from another origin, is refused before it runs', async (t) => {
      const h = await adminHarness(t, backend);
      const w = await populatedWorkspace(h);
      const { browser } = await activeClient(h, w.ws, w.company.id, 'grace@acme.test');
      const url = `/portal/${w.ws.workspaceId}/api/session`;
      const cookie = `portal_session=${browser.cookie}`;
      const bare = await h.app.inject({ method: 'DELETE', url, headers: { cookie } });
      assert.equal(bare.statusCode, 403);
      assert.match(bare.json().message, /X-Portal-Request: 1/);
      const evil = await h.app.inject({ method: 'DELETE', url, headers: { cookie, 'x-portal-request': '1', origin: 'https://evil.test' } });
      assert.deepEqual([evil.statusCode, evil.json().message], [403, 'Cross-origin requests are refused.']);
      assert.equal((await browser.call('GET', '/session')).statusCode, 200, 'still signed in');
      const own = await h.app.inject({
        method: 'DELETE',
        url,
        headers: { cookie, 'x-portal-request': '1', origin: 'http://localhost:80' },
      });
      assert.equal(own.statusCode, 204, 'the service’s own origin');
    });

    test('session fixation: a cookie planted before sign-in is never adopted; every sign-in sets a new one', async (t) => {
      const h = await adminHarness(t, backend);
      const w = await populatedWorkspace(h);
      const { browser } = await activeClient(h, w.ws, w.company.id, 'grace@acme.test');
      const planted = 'A'.repeat(43);
      const victim = portalBrowser(h, w.ws.workspaceId);
      victim.cookie = planted;
      const signedIn = await victim.call('POST', '/sign-in/password', { email: 'grace@acme.test', password: PASSWORD });
      assert.equal(signedIn.statusCode, 200);
      assert.notEqual(victim.cookie, planted);
      const attacker = portalBrowser(h, w.ws.workspaceId);
      attacker.cookie = planted;
      assert.equal((await attacker.call('GET', '/session')).statusCode, 401);
      // Signing in again while signed in: a new cookie, the old one still its own session (both the person's).
      const before = browser.cookie;
      await browser.call('POST', '/sign-in/password', { email: 'grace@acme.test', password: PASSWORD });
      assert.notEqual(browser.cookie, before);
    });

    test('a link redeemed by five requests at once opens exactly one session', async (t) => {
      const h = await adminHarness(t, backend);
      const w = await populatedWorkspace(h);
      await activeClient(h, w.ws, w.company.id, 'grace@acme.test');
      await portalBrowser(h, w.ws.workspaceId).call('POST', '/sign-in/link', { email: 'grace@acme.test' });
      const { token } = await lastEmailTo(h, w.ws.workspaceId, 'grace@acme.test');
      const results = await Promise.all(
        Array.from({ length: 5 }, () => portalBrowser(h, w.ws.workspaceId).call('POST', '/sign-in/link/redeem', { token })),
      );
      assert.deepEqual(results.map((r) => r.statusCode).sort(), [200, 401, 401, 401, 401]);
      const sessions = await h.app.ctx.db.selectFrom('sign_in_sessions').select('method').where('method', '=', 'magicLink').execute();
      assert.equal(sessions.length, 1);
    });

    test('a session ends after 30 idle minutes, and after 12 hours however active', async (t) => {
      const h = await adminHarness(t, backend);
      const w = await populatedWorkspace(h);
      const { browser } = await activeClient(h, w.ws, w.company.id, 'grace@acme.test');
      h.clock.advance(29 * 60_000);
      assert.equal((await browser.call('GET', '/session')).statusCode, 200, 'used within 30 minutes');
      h.clock.advance(30 * 60_000);
      assert.equal((await browser.call('GET', '/session')).statusCode, 401, 'idle 30 minutes');
      const active = (await activeClient(h, w.ws, w.company.id, 'alan@acme.test')).browser;
      for (let minutes = 20; minutes < 12 * 60; minutes += 20) {
        h.clock.advance(20 * 60_000);
        assert.equal((await active.call('GET', '/session')).statusCode, 200, `at ${minutes} minutes`);
      }
      h.clock.advance(20 * 60_000);
      assert.equal((await active.call('GET', '/session')).statusCode, 401, 'at 12 hours');
    });

    test('sign-out, and removing a client or a member of staff, end the session on every server sharing the database at once', async (t) => {
      const { one, two, clock } = await twoServersOnOneDatabase(t, backend);
      const h1 = { app: one, clock, as: (apiKey: string, o: object) => one.inject({ ...o, headers: { 'x-api-key': apiKey } }) };
      const created = await adminRequest({ app: one } as Harness, 'POST', '/admin/workspaces', { name: 'Acme' });
      const ws = { workspaceId: created.json().workspaceId, apiKey: created.json().apiKey };
      const company = (await h1.as(ws.apiKey, { method: 'POST', url: '/v1/companies', payload: { name: 'Acme Co' } })).json();
      const grace = await activeClient(h1 as never, ws, company.id, 'grace@acme.test');
      const alan = await activeClient(h1 as never, ws, company.id, 'alan@acme.test');
      const onTwo = (browser: { cookie: string }) => {
        const there = portalBrowser({ app: two }, ws.workspaceId);
        there.cookie = browser.cookie;
        return there.call('GET', '/session');
      };
      assert.equal((await onTwo(grace.browser)).statusCode, 200);
      const kept = grace.browser.cookie;
      assert.equal((await grace.browser.call('DELETE', '/session')).statusCode, 204);
      assert.equal((await onTwo({ cookie: kept })).statusCode, 401, 'signed out on one: refused on two');
      assert.equal((await onTwo(alan.browser)).statusCode, 200);
      assert.equal((await h1.as(ws.apiKey, { method: 'DELETE', url: `/v1/clients/${alan.id}` })).statusCode, 200);
      assert.equal((await onTwo(alan.browser)).statusCode, 401, 'removed on one: refused on two');
      // A member of staff removed by the operator on one server: refused on the other at its next request.
      const staff = await adminRequest({ app: one } as Harness, 'POST', `/admin/workspaces/${ws.workspaceId}/internal-users`, {
        email: 'sam@acme.test',
        givenName: 'Sam',
        familyName: 'S',
      });
      const sam = portalBrowser({ app: one }, ws.workspaceId);
      await sam.call('POST', '/password-resets', { email: 'sam@acme.test', userType: 'internalUser' });
      const { token } = await lastEmailTo({ app: one }, ws.workspaceId, 'sam@acme.test');
      await sam.call('POST', '/password-resets/complete', { token, password: PASSWORD });
      const signedIn = await sam.call('POST', '/sign-in/password', {
        email: 'sam@acme.test',
        password: PASSWORD,
        userType: 'internalUser',
      });
      assert.equal(signedIn.statusCode, 200, signedIn.body);
      assert.equal((await onTwo(sam)).statusCode, 200);
      const removed = await adminRequest(
        { app: one } as Harness,
        'DELETE',
        `/admin/workspaces/${ws.workspaceId}/internal-users/${staff.json().id}`,
      );
      assert.equal(removed.statusCode, 200);
      assert.equal((await onTwo(sam)).statusCode, 401, 'staff removed on one: refused on two');
    });
  });
}
