// Rule (issue 14, part 4): /metrics in the Prometheus format behind the admin token: requests by route and
// status with latency histograms, limit refusals, quota used per workspace, outbox depths, Node's own.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { randomUUID } from 'node:crypto';
import { TEST_ADMIN_TOKEN, adminRequest, populatedWorkspace } from './helpers/factories.js';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { BACKENDS, NOON, adminHarness, harness } from './helpers/harness.js';
import { redisPrefixFor, testRedisUrl } from './helpers/redis.js';
import { freePort } from './helpers/server.js';

/** The exposition parsed by a Prometheus text-format parser: one sample's value by name and labels (undefined when absent). */
function scrape(text: string) {
  const families = parsePrometheusTextFormat(text);
  return (name: string, labels: Record<string, string> = {}) => {
    const family = families.find((f) => f.name === name);
    const sample = family?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
    return sample?.value === undefined ? undefined : Number(sample.value);
  };
}

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
      const sample = scrape(text);
      assert.equal(sample('portal_http_requests_total', { method: 'GET', route: '/v1/me', status: '200' }), 2);
      assert.equal(sample('portal_limit_refusals_total', { kind: 'burst' }), 1);
      assert.equal(sample('portal_quota_used', { workspace: ws.workspaceId }), 5, 'the company, the client, two /v1/me, the notification');
      assert.equal(sample('portal_email_outbox', { status: 'queued' }), 1);
      // (This parser keeps a histogram's buckets but not its labels: the +Inf bucket is checked in the text above.)
      assert.equal(parsePrometheusTextFormat(text).find((f) => f.name === 'portal_http_request_duration_seconds')?.type, 'HISTOGRAM');
      // PostgreSQL's pool is reported; SQLite has none.
      assert.equal(sample('portal_db_pool_connections', { state: 'max' }), backend === 'postgres' ? 10 : undefined);
      assert.match(text, /^portal_http_requests_total\{method="GET",route="\/v1\/me",status="200"\} 2$/m);
      assert.match(text, /^portal_http_requests_total\{method="GET",route="\/v1\/me",status="429"\} 1$/m);
      assert.match(text, /^portal_limit_refusals_total\{kind="burst"\} 1$/m);
      assert.match(text, /^portal_http_request_duration_seconds_bucket\{le="\+Inf",method="GET",route="\/v1\/me",status="200"\} 2$/m);
      assert.match(text, new RegExp(`^portal_quota_used\\{workspace="${ws.workspaceId}"\\} \\d+$`, 'm'));
      assert.match(text, /^portal_email_outbox\{status="queued"\} 1$/m);
      assert.match(text, /^nodejs_eventloop_lag_seconds \d/m);
    });

    test('webhook work due more than OUTBOX_STUCK_MINUTES ago: portal_outbox_stuck 1 and its age, /readyz still 200; then 0', async (t) => {
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
      const metrics = async () =>
        scrape((await h.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } })).body);
      const stuck = await metrics();
      assert.deepEqual(
        [stuck('portal_outbox_stuck', { outbox: 'webhooks' }), stuck('portal_outbox_oldest_due_seconds', { outbox: 'webhooks' })],
        [1, 16 * 60],
        'an alert: due 16 minutes ago, by the app clock',
      );
      assert.equal(stuck('portal_outbox_stuck', { outbox: 'email' }), undefined, 'without SMTP_URL e-mails wait by design');
      assert.equal((await h.app.inject('/readyz')).statusCode, 200, 'not a reason to take the replicas out of service');
      await h.app.ctx.db.updateTable('webhook_deliveries').set({ status: 'succeeded' }).execute();
      const delivered = await metrics();
      assert.deepEqual(
        [delivered('portal_outbox_stuck', { outbox: 'webhooks' }), delivered('portal_outbox_oldest_due_seconds', { outbox: 'webhooks' })],
        [0, 0],
      );
    });

    test('METRICS_PORT serves GET /metrics on its own port without the token, and nothing else', async (t) => {
      const port = await freePort();
      const h = await harness(t, backend, { webhooks: false, subscriptionPollMs: false, env: { METRICS_PORT: String(port) } });
      await h.app.ready();
      await h.workspace();
      const res = await fetch(`http://127.0.0.1:${port}/metrics`);
      assert.equal(res.status, 200);
      assert.match(String(res.headers.get('content-type')), /^text\/plain; version=0\.0\.4/);
      assert.equal(scrape(await res.text())('portal_http_requests_total', { route: '/v1/me' }), undefined);
      assert.equal((await fetch(`http://127.0.0.1:${port}/admin/workspaces`)).status, 404);
      assert.equal((await h.app.inject('/metrics')).statusCode, 404, 'no admin token: not on the API port');
    });

    test('with REDIS_URL, portal_quota_used reads the shared counts from Redis', { skip: testRedisUrl ? false : 'no Redis' }, async (t) => {
      const h = await adminHarness(t, backend, {
        webhooks: false,
        subscriptionPollMs: false,
        env: { REDIS_URL: String(testRedisUrl), REDIS_KEY_PREFIX: redisPrefixFor(t) },
      });
      const ws = await h.workspace();
      for (let i = 0; i < 4; i++) assert.equal((await h.as(ws.apiKey, { method: 'GET', url: '/v1/me' })).statusCode, 200);
      const res = await adminRequest(h, 'GET', '/metrics');
      assert.equal(scrape(res.body)('portal_quota_used', { workspace: ws.workspaceId }), 4);
    });

    test('without PORTAL_ADMIN_TOKEN there is no /metrics (404)', async (t) => {
      const h = await harness(t, backend, { webhooks: false, subscriptionPollMs: false });
      assert.equal((await h.app.inject({ method: 'GET', url: '/metrics' })).statusCode, 404);
    });

    test('without PORTAL_ADMIN_TOKEN, /metrics on the API port is a 404 whose body says how to turn it on (issue 29)', async (t) => {
      const h = await harness(t, backend, { webhooks: false, subscriptionPollMs: false });
      const res = await h.app.inject({ method: 'GET', url: '/metrics' });
      assert.equal(res.statusCode, 404);
      assert.equal(res.headers['content-type'], 'text/plain; charset=utf-8');
      assert.equal(res.headers['cache-control'], 'no-store');
      assert.equal(
        res.body,
        'Not found: /metrics is off. Set PORTAL_ADMIN_TOKEN (16+ characters) and restart to serve it here behind that token\n' +
          '(Authorization: Bearer <token>), or METRICS_PORT for a private listener without it (docs/operations.md, Metrics).\n',
      );
      const port = await freePort();
      const withPort = await harness(t, backend, { webhooks: false, subscriptionPollMs: false, env: { METRICS_PORT: String(port) } });
      const elsewhere = await withPort.app.inject({ method: 'GET', url: '/metrics' });
      assert.equal(elsewhere.statusCode, 404);
      assert.equal(
        elsewhere.body,
        'Not found: /metrics is served on the METRICS_PORT listener, not on this port. Set PORTAL_ADMIN_TOKEN (16+ characters)\n' +
          'and restart to serve it here too, behind that token (docs/operations.md, Metrics).\n',
      );
    });
  });
}
