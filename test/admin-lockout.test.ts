// Security issue 20, point 5: strangers' failures from one address never lock the operator out. The admin token,
// a valid console cookie, the console sign-in and /metrics are verified first, as /v1 credentials are; only a
// failure from an address out of tries answers 429.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { BACKENDS, TEST_ADMIN_TOKEN, adminHarness } from './helpers/harness.js';
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
