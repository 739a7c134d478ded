import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { isoAt } from '../lib/clock.js';
import { adminGuard } from '../modules/admin/admin.guard.js';

/**
 * `GET /metrics` in the Prometheus text format, behind the admin token (without PORTAL_ADMIN_TOKEN it
 * does not exist): requests by route and status with latency histograms, burst and quota refusals,
 * today's quota use per workspace, the depths of the e-mail outbox, the webhook deliveries and the
 * subscriptions due, and Node's own (event-loop lag, memory, GC). Counts that live in the database are
 * read at scrape time, so every process reports the same totals; one registry per app.
 */
export default fp(
  async function metrics(app: FastifyInstance, opts: { adminToken: string }) {
    const register = new Registry();
    collectDefaultMetrics({ register });
    const labelNames = ['method', 'route', 'status'] as const;
    const requests = new Counter({ name: 'portal_http_requests_total', help: 'HTTP requests answered', labelNames, registers: [register] });
    const latency = new Histogram({
      name: 'portal_http_request_duration_seconds',
      help: 'Time to answer, by route',
      labelNames,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [register],
    });
    const refusals = new Counter({
      name: 'portal_limit_refusals_total',
      help: 'Requests refused by the burst limit or the daily quota',
      labelNames: ['kind'] as const,
      registers: [register],
    });
    const { db } = app.ctx;
    new Gauge({
      name: 'portal_quota_used',
      help: 'Requests counted against each workspace’s daily quota today (UTC), as stored in the database',
      labelNames: ['workspace'] as const,
      registers: [register],
      async collect() {
        this.reset();
        // The in-process store keeps today's counts in memory and writes them every few seconds: write them now.
        await (app.ctx.limitStore as { flush?: () => Promise<void> }).flush?.();
        const today = isoAt(app.ctx.clock.now()).slice(0, 10);
        for (const row of await db.selectFrom('quota_usage').select(['workspace_id', 'used']).where('day', '=', today).execute()) {
          this.set({ workspace: row.workspace_id }, Number(row.used));
        }
      },
    });
    const depth = (name: string, help: string, query: () => Promise<{ status: string; count: string | number | bigint }[]>) =>
      new Gauge({
        name,
        help,
        labelNames: ['status'] as const,
        registers: [register],
        async collect() {
          this.reset();
          for (const row of await query()) this.set({ status: row.status }, Number(row.count));
        },
      });
    depth('portal_email_outbox', 'E-mails of the outbox by status', () =>
      db
        .selectFrom('email_outbox')
        .select((eb) => ['status', eb.fn.countAll().as('count')])
        .groupBy('status')
        .execute(),
    );
    depth('portal_webhook_deliveries', 'Webhook deliveries by status (outcomes: succeeded, failed; pending: the queue)', () =>
      db
        .selectFrom('webhook_deliveries')
        .select((eb) => ['status', eb.fn.countAll().as('count')])
        .groupBy('status')
        .execute(),
    );
    depth('portal_subscriptions', 'Subscriptions by status', () =>
      db
        .selectFrom('subscriptions')
        .select((eb) => ['status', eb.fn.countAll().as('count')])
        .groupBy('status')
        .execute(),
    );

    app.addHook('onResponse', (request, reply, done) => {
      const labels = { method: request.method, route: request.routeOptions.url ?? 'unknown', status: String(reply.statusCode) };
      requests.inc(labels);
      latency.observe(labels, reply.elapsedTime / 1000);
      if (reply.statusCode === 429) refusals.inc({ kind: reply.getHeader('retry-after') === undefined ? 'quota' : 'burst' });
      done();
    });

    await app.register(async (scope) => {
      scope.addHook('onRequest', adminGuard(scope, opts.adminToken));
      scope.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
        reply.type(register.contentType);
        return register.metrics();
      });
    });
  },
  { name: 'metrics' },
);
