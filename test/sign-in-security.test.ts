// Issue 32, point 5: sign-in held to OWASP ASVS level 2 (authentication and session management), attacked: answers
// that do not tell whether an e-mail exists; failed guesses limited per account and per address without letting a
// stranger lock the owner out; secrets stored as hashes only; CSRF and session fixation closed; a link redeemed by
// many requests at once opens one session; idle and absolute expiry; sign-out and removal end a session on every
// server sharing the database. Both backends.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { adminRequest, populatedWorkspace } from './helpers/factories.js';
import { BACKENDS, adminHarness, twoServersOnOneDatabase } from './helpers/harness.js';
import { lastEmailTo, portalBrowser } from './helpers/portal.js';
import type { Harness } from './helpers/types.js';

const PASSWORD = 'correct horse battery';

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
