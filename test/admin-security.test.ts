// Security issue 20, points 5 and 6. Strangers' failures from one address never lock the operator out. The admin token,
// a valid console cookie, the console sign-in and /metrics are verified first, as /v1 credentials are; only a
// failure from an address out of tries answers 429. Signing out of the console ends the session on every server.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { BACKENDS, TEST_ADMIN_TOKEN, adminHarness, twoServersOnOneDatabase } from './helpers/harness.js';
import type { Harness } from './helpers/types.js';

const STRANGER = '10.7.7.7';

/** 31 bad X-API-KEYs from the address: the contract's 30 failures a minute are used up. */
async function lockOut(h: Harness) {
  for (let i = 0; i < 31; i++)
    await h.app.inject({
      method: 'GET',
      url: '/v1/me',
      headers: { 'x-api-key': `ppk_${String(i).padStart(59, 'z')}` },
      remoteAddress: STRANGER,
    });
  const refused = await h.app.inject({ method: 'GET', url: '/v1/me', headers: { 'x-api-key': 'ppk_nope' }, remoteAddress: STRANGER });
  assert.equal(refused.statusCode, 429, 'the address is out of tries');
}

for (const backend of BACKENDS) {
  describe(`the operator is never locked out by strangers at its address [${backend}]`, () => {
    test('the admin token, the console cookie, the sign-in and /metrics are served; wrong ones get 429', async (t) => {
      const h = await adminHarness(t, backend);
      const signIn = await h.app.inject({ method: 'POST', url: '/admin/session', payload: { token: TEST_ADMIN_TOKEN } });
      const cookie = String(signIn.headers['set-cookie']).split(';')[0];
      await lockOut(h);
      const from = (method: 'GET' | 'POST', url: string, headers: Record<string, string>, payload?: object) =>
        h.app.inject({ method, url, headers, remoteAddress: STRANGER, ...(payload ? { payload } : {}) });

      const byToken = await from('GET', '/admin/workspaces', { authorization: `Bearer ${TEST_ADMIN_TOKEN}` });
      assert.equal(byToken.statusCode, 200, byToken.body);
      const byCookie = await from('GET', '/admin/workspaces', { cookie, 'x-portal-console': '1' });
      assert.equal(byCookie.statusCode, 200, byCookie.body);
      const newSession = await from('POST', '/admin/session', {}, { token: TEST_ADMIN_TOKEN });
      assert.equal(newSession.statusCode, 204, newSession.body);
      assert.match(String(newSession.headers['set-cookie']), /^portal_admin=/);
      const metrics = await from('GET', '/metrics', { authorization: `Bearer ${TEST_ADMIN_TOKEN}` });
      assert.equal(metrics.statusCode, 200);

      for (const [label, res] of [
        ['a wrong admin token', await from('GET', '/admin/workspaces', { authorization: 'Bearer wrong-admin-token-000000' })],
        ['a wrong sign-in', await from('POST', '/admin/session', {}, { token: 'wrong-admin-token-000000' })],
        ['a forged cookie', await from('GET', '/admin/workspaces', { cookie: `${cookie}x`, 'x-portal-console': '1' })],
        ['/metrics with a wrong token', await from('GET', '/metrics', { authorization: 'Bearer wrong-admin-token-000000' })],
      ] as const) {
        assert.equal(res.statusCode, 429, `${label}: ${res.body}`);
        assert.deepEqual(Object.keys(res.json()), ['code', 'message', 'data'], label);
        assert.equal(res.json().code, 'rate_limit_exceeded', label);
        assert.match(String(res.headers['retry-after']), /^[1-9]\d*$/, label);
      }
    });
  });
}

for (const backend of BACKENDS) {
  describe(`signing out ends a console session on every server [${backend}] (issue 20, point 6)`, () => {
    test('after DELETE /admin/session the same cookie is a 401 on this server and on another sharing the database', async (t) => {
      const { one, two, clock, database } = await twoServersOnOneDatabase(t, backend);
      const signIn = await one.inject({ method: 'POST', url: '/admin/session', payload: { token: TEST_ADMIN_TOKEN } });
      const cookie = String(signIn.headers['set-cookie']).split(';')[0];
      const other = String(
        (await one.inject({ method: 'POST', url: '/admin/session', payload: { token: TEST_ADMIN_TOKEN } })).headers['set-cookie'],
      ).split(';')[0];
      const list = (app: FastifyInstance, session: string) =>
        app.inject({ method: 'GET', url: '/admin/workspaces', headers: { cookie: session, 'x-portal-console': '1' } });
      assert.equal((await list(two, cookie)).statusCode, 200, 'valid on both servers before');

      const out = await one.inject({ method: 'DELETE', url: '/admin/session', headers: { cookie } });
      assert.equal(out.statusCode, 204);
      assert.equal(out.headers['set-cookie'], 'portal_admin=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict');
      for (const app of [one, two]) {
        const refused = await list(app, cookie);
        assert.equal(refused.statusCode, 401);
        assert.deepEqual(refused.json(), {
          code: 'unauthorized',
          message: 'Missing or wrong admin token: send Authorization: Bearer <PORTAL_ADMIN_TOKEN>, or sign in to the console.',
          data: null,
        });
      }
      assert.equal((await list(two, other)).statusCode, 200, 'another session goes on');
      const stored = await database.db.selectFrom('console_session_revocations').selectAll().execute();
      assert.equal(stored.length, 1);
      assert.ok(!cookie.includes(stored[0].session_hash) && stored[0].session_hash.length === 64, 'only a hash is stored');

      // Once past its expiry the record is forgotten at the next sign-out (the cookie has expired anyway).
      clock.advance(8 * 3600_000);
      const later = String(
        (await two.inject({ method: 'POST', url: '/admin/session', payload: { token: TEST_ADMIN_TOKEN } })).headers['set-cookie'],
      ).split(';')[0];
      await two.inject({ method: 'DELETE', url: '/admin/session', headers: { cookie: later } });
      const left = await database.db.selectFrom('console_session_revocations').select('session_hash').execute();
      assert.equal(left.length, 1, 'the expired record went; the new one is kept');
      assert.notEqual(left[0].session_hash, stored[0].session_hash);
    });
  });
}
