import { createServer } from 'node:http';
import { once } from 'node:events';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { allWorkspaceIds, countByStatus, oldestWaiting } from '../db/monitoring.js';
import { isoAt } from '../lib/clock.js';
import { adminGuard } from './admin.js';

/**
 * `GET /metrics` in the Prometheus text format, behind the admin token, and on METRICS_PORT without it
 * (a private listener for Prometheus; with neither set there are no metrics): requests by route and status with latency histograms, burst and quota refusals,
 * today's quota use per workspace, the depths of the e-mail outbox, the webhook deliveries and the
 * subscriptions due, PostgreSQL's pool, and Node's own (event-loop lag, memory, GC). Counts that live in the database are
 * read at scrape time, so every process reports the same totals; one registry per app.
 */
/** Workspaces whose counts are read at once (one query or one MGET each). */
const QUOTA_READ_CHUNK = 500;

export default fp(
  async function metrics(app: FastifyInstance, opts: { adminToken: string | undefined; metricsPort: number | undefined; host: string }) {
    // Loaded only where metrics are on (the admin token or METRICS_PORT): not in every process's memory.
    const { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } = await import('prom-client');
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
    const { db, database, limitStore } = app.ctx;
    new Gauge({
      name: 'portal_quota_used',
      help: 'Requests counted against each workspace’s daily quota today (UTC), as the limit state holds them (in process or Redis)',
      labelNames: ['workspace'] as const,
      registers: [register],
      async collect() {
        this.reset();
        const today = isoAt(app.ctx.clock.now()).slice(0, 10);
        const ids = await allWorkspaceIds(db);
        for (let start = 0; start < ids.length; start += QUOTA_READ_CHUNK) {
          const chunk = ids.slice(start, start + QUOTA_READ_CHUNK);
          const used = await limitStore.quotaUsedMany(chunk, today);
          for (const [i, id] of chunk.entries()) if (used[i] > 0) this.set({ workspace: id }, used[i]);
        }
      },
    });
    const pool = database.poolStats;
    if (pool) {
      new Gauge({
        name: 'portal_db_pool_connections',
        help: 'PostgreSQL pool: connections by state (open, idle, max) and requests waiting for one',
        labelNames: ['state'] as const,
        registers: [register],
        collect() {
          const stats = pool();
          for (const state of ['total', 'idle', 'waiting', 'max'] as const) this.set({ state }, stats[state]);
        },
      });
    }
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
    depth('portal_email_outbox', 'E-mails of the outbox by status', () => countByStatus(db, 'email_outbox'));
    depth('portal_webhook_deliveries', 'Webhook deliveries by status (outcomes: succeeded, failed; pending: the queue)', () =>
      countByStatus(db, 'webhook_deliveries'),
    );
    depth('portal_subscriptions', 'Subscriptions by status', () => countByStatus(db, 'subscriptions'));
    // A stuck outbox is an alert, not a reason to take replicas out of service (docs/operations.md has the rule).
    const outboxes = [
      { outbox: 'webhooks', table: 'webhook_deliveries' as const },
      ...(app.ctx.config.smtpUrl ? [{ outbox: 'email', table: 'email_outbox' as const }] : []), // without SMTP e-mails wait by design
    ];
    new Gauge({
      name: 'portal_outbox_oldest_due_seconds',
      help: 'How long the oldest due work of each outbox has waited (0: none); past OUTBOX_STUCK_MINUTES, portal_outbox_stuck is 1',
      labelNames: ['outbox'] as const,
      registers: [register],
      async collect() {
        const now = app.ctx.clock.now();
        for (const { outbox, table } of outboxes) {
          const due = await oldestWaiting(db, table, isoAt(now));
          this.set({ outbox }, due === undefined ? 0 : Math.max(0, (now - Date.parse(due)) / 1000));
        }
      },
    });
    new Gauge({
      name: 'portal_outbox_stuck',
      help: 'Whether an outbox has had work due for longer than OUTBOX_STUCK_MINUTES (1: alert)',
      labelNames: ['outbox'] as const,
      registers: [register],
      async collect() {
        const cutoff = isoAt(app.ctx.clock.now() - app.ctx.config.outboxStuckMs);
        for (const { outbox, table } of outboxes) this.set({ outbox }, (await oldestWaiting(db, table, cutoff)) === undefined ? 0 : 1);
      },
    });
    new Gauge({
      name: 'portal_event_streams_open',
      help: 'Event streams (GET /v1/messages/stream) open on this process',
      registers: [register],
      collect() {
        this.set(app.ctx.events.streams.size);
      },
    });
    if (limitStore.shared !== undefined) {
      new Gauge({
        name: 'portal_limit_state_shared',
        help: 'Whether this process counts limits in Redis (1) or, Redis unreachable, on its own (0)',
        registers: [register],
        collect() {
          this.set(limitStore.shared ? 1 : 0);
        },
      });
    }

    app.addHook('onResponse', function countRequest(request, reply, done) {
      const labels = { method: request.method, route: request.routeOptions.url ?? 'unknown', status: String(reply.statusCode) };
      requests.inc(labels);
      latency.observe(labels, reply.elapsedTime / 1000);
      if (reply.statusCode === 429) refusals.inc({ kind: reply.getHeader('retry-after') === undefined ? 'quota' : 'burst' });
      done();
    });

    const { adminToken, metricsPort } = opts;
    if (adminToken) {
      await app.register(async (scope) => {
        scope.addHook('onRequest', adminGuard(scope, adminToken));
        scope.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
          reply.type(register.contentType);
          return register.metrics();
        });
      });
    }
    if (metricsPort !== undefined) {
      // METRICS_PORT: a plain listener for Prometheus on a private port (no token), beside the API's.
      const server = createServer((request, response) => {
        if (request.method !== 'GET' || request.url?.split('?')[0] !== '/metrics') {
          response.writeHead(404, { 'content-type': 'text/plain' }).end('Not found: GET /metrics\n');
          return;
        }
        register.metrics().then(
          (text) => response.writeHead(200, { 'content-type': register.contentType }).end(text),
          (error: Error) => {
            app.log.error({ err: error }, 'metrics collection failed');
            response.writeHead(500, { 'content-type': 'text/plain' }).end('metrics collection failed\n');
          },
        );
      });
      app.addHook('onReady', async () => {
        server.listen(metricsPort, opts.host);
        await once(server, 'listening');
      });
      app.addHook('onClose', async () => {
        server.closeAllConnections();
        if (server.listening) await new Promise((resolve) => server.close(resolve));
      });
    }
  },
  { name: 'metrics' },
);

/** What GET /metrics answers on the API's port while PORTAL_ADMIN_TOKEN is unset: how to turn it on. */
function metricsOffMessage(metricsPort: number | undefined): string {
  return metricsPort === undefined
    ? 'Not found: /metrics is off. Set PORTAL_ADMIN_TOKEN (16+ characters) and restart to serve it here behind that token\n' +
        '(Authorization: Bearer <token>), or METRICS_PORT for a private listener without it (docs/operations.md, Metrics).\n'
    : 'Not found: /metrics is served on the METRICS_PORT listener, not on this port. Set PORTAL_ADMIN_TOKEN (16+ characters)\n' +
        'and restart to serve it here too, behind that token (docs/operations.md, Metrics).\n';
}

/** Without PORTAL_ADMIN_TOKEN, GET /metrics on the API's port stays a 404, with a body saying how to turn it on. */
export async function metricsOffRoutes(app: FastifyInstance, opts: { metricsPort: number | undefined }) {
  const message = metricsOffMessage(opts.metricsPort);
  app.get('/metrics', { schema: { hide: true } }, (_request, reply) =>
    reply.code(404).header('cache-control', 'no-store').type('text/plain; charset=utf-8').send(message),
  );
}
