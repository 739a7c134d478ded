import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compileAll } from '../src/plugins/validation.js';
import { adminHarness } from './helpers/harness.js';

// Route schemas compile on first use (src/plugins/validation.ts onFirstCall): a schema that cannot compile must
// fail the suite here, not a user's first request to its route.
test('every route schema (validators and serializers, the admin surface included) compiles', async (t) => {
  const h = await adminHarness(t, 'sqlite', { webhooks: false, subscriptionPollMs: false });
  const me = await h.app.inject({ method: 'GET', url: '/v1/me' });
  assert.equal(me.statusCode, 401, 'a request compiles only what its route uses');
  const compiled = compileAll();
  // Some 130 operations (and their HEAD routes), a validator per request part and a serializer per response
  // status each: 1,863 functions when this was written, every one compiled at start-up before.
  assert.ok(compiled > 500, `${compiled} schema functions compiled`);
  assert.equal(compileAll(), 0, 'each compiled once');
});
