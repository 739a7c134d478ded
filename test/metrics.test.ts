// Rule (issue 14, part 4): /metrics in the Prometheus format behind the admin token: requests by route and
// status with latency histograms, limit refusals, quota used per workspace, outbox depths, Node's own.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { randomUUID } from 'node:crypto';
import { TEST_ADMIN_TOKEN, adminRequest, populatedWorkspace } from './helpers/factories.js';
import { BACKENDS, NOON, adminHarness, harness } from './helpers/harness.js';

for (const backend of BACKENDS) {
  describe(`GET /metrics [${backend}]`, () => {
    test('Prometheus text behind the admin token: requests, latency, refusals, quota, outbox depths, event-loop lag', async (t) => {
      const h = await adminHarness(t, backend, {
        webhooks: false,
        subscriptionPollMs: false,
        env: { RATE_LIMIT_GET_CAPACITY: '2', RATE_LIMIT_GET_REFILL: '1' },
      });
      const { ws, user, client } = await populatedWorkspace(h);
      for (let i = 0; i < 3; i++) await h.as(ws.apiKey, { method: 'GET', url: '/v1/me' });
      await h.as(ws.apiKey, {
        method: 'POST',
        url: '/v1/notifications',
        payload: { senderId: user.id, recipientClientId: client.id, deliveryTargets: { email: { subject: 'Hi' } } },
      });
      const refused = await h.app.inject({ method: 'GET', url: '/metrics' });
      assert.equal(refused.statusCode, 401);
      const res = await h.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } });
      assert.equal(res.statusCode, 200, res.body);
      assert.match(String(res.headers['content-type']), /^text\/plain; version=0\.0\.4/);
      const text = res.body;
      assert.match(text, /^portal_http_requests_total\{method="GET",route="\/v1\/me",status="200"\} 2$/m);
      assert.match(text, /^portal_http_requests_total\{method="GET",route="\/v1\/me",status="429"\} 1$/m);
      assert.match(text, /^portal_limit_refusals_total\{kind="burst"\} 1$/m);
      assert.match(text, /^portal_http_request_duration_seconds_bucket\{le="\+Inf",method="GET",route="\/v1\/me",status="200"\} 2$/m);
      assert.match(text, new RegExp(`^portal_quota_used\\{workspace="${ws.workspaceId}"\\} \\d+$`, 'm'));
      assert.match(text, /^portal_email_outbox\{status="queued"\} 1$/m);
      assert.match(text, /^nodejs_eventloop_lag_seconds \d/m);
    });

    test('/readyz fails while webhook work due more than OUTBOX_STUCK_MINUTES ago waits, and recovers', async (t) => {
      const h = await adminHarness(t, backend, { webhooks: false, subscriptionPollMs: false, env: { PORTAL_WEBHOOKS_ALLOW_PRIVATE: '1' } });
      const { ws } = await populatedWorkspace(h);
      const endpoint = await adminRequest(h, 'POST', `/admin/workspaces/${ws.workspaceId}/webhooks`, { url: 'http://127.0.0.1:9/' });
      const due = new Date(NOON - 16 * 60_000).toISOString();
      await h.app.ctx.db
        .insertInto('webhook_deliveries')
        .values({
          id: randomUUID(),
          workspace_id: ws.workspaceId,
          endpoint_id: endpoint.json().id,
          event_id: randomUUID(),
          event_type: 'company.created',
          payload: '{}',
          status: 'pending',
          attempts: 0,
          next_attempt_at: due,
          claimed_until: null,
          last_status: null,
          last_error: null,
          created_at: due,
          updated_at: due,
        })
        .execute();
      const stuck = await h.app.inject('/readyz');
      assert.equal(stuck.statusCode, 503);
      assert.equal(stuck.json().message, `The webhook outbox has had work due since ${due}: is delivery stuck?`);
      await h.app.ctx.db.updateTable('webhook_deliveries').set({ status: 'succeeded' }).execute();
      assert.equal((await h.app.inject('/readyz')).statusCode, 200);
    });

    test('without PORTAL_ADMIN_TOKEN there is no /metrics (404)', async (t) => {
      const h = await harness(t, backend, { webhooks: false, subscriptionPollMs: false });
      assert.equal((await h.app.inject({ method: 'GET', url: '/metrics' })).statusCode, 404);
    });
  });
}
