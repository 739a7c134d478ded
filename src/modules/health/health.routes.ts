import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { oldestWaiting } from '../../db/monitoring.js';
import { isoAt } from '../../lib/clock.js';
import { errors } from '../../lib/errors.js';
import { errorResponses } from '../../lib/schemas.js';
import { HealthStatus } from './health.schemas.js';

/** Liveness (the process answers) and readiness (the database and limit state answer, no outbox stuck), unauthenticated. */
export default async function healthRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/healthz',
    {
      schema: {
        tags: ['operations'],
        operationId: 'checkLiveness',
        summary: 'Liveness: the process answers',
        description:
          'Public and never limited: `{status: "ok"}` while the process runs, for a liveness probe. Whether it can serve requests is ' +
          '/readyz.',
        security: [],
        response: { 200: HealthStatus, ...errorResponses(400) },
      },
    },
    async () => ({
      status: 'ok' as const,
    }),
  );

  app.get(
    '/readyz',
    {
      schema: {
        tags: ['operations'],
        operationId: 'checkReadiness',
        summary: 'Readiness: storage and limit state answer, no outbox stuck',
        description:
          'Public and never limited: `{status: "ok"}` when the database and the limit state (Redis, when used) answer and no outbox (webhook ' +
          'deliveries; e-mails when SMTP_URL is set) has had work due for longer than OUTBOX_STUCK_MINUTES; otherwise a 503 saying which. ' +
          'A process shutting down answers 503, so a load balancer stops sending it requests.',
        security: [],
        response: { 200: HealthStatus, ...errorResponses(400, 503) },
      },
    },
    async () => {
      if (app.ctx.lifecycle.draining) throw errors.unavailable('Shutting down.');
      try {
        await app.ctx.database.ping();
      } catch (error) {
        app.log.warn({ err: error }, 'readiness check failed');
        throw errors.unavailable('Database is unreachable.');
      }
      try {
        await app.ctx.limitStore.ping();
      } catch (error) {
        app.log.warn({ err: error }, 'readiness check failed');
        throw errors.unavailable('Limit state (Redis) is unreachable.');
      }
      const stuckSince = await oldestStuck(app, app.ctx.clock.now() - app.ctx.config.outboxStuckMs);
      if (stuckSince) throw errors.unavailable(`The ${stuckSince.outbox} has had work due since ${stuckSince.since}: is delivery stuck?`);
      return { status: 'ok' as const };
    },
  );
}

/**
 * An outbox whose oldest due work has waited past the threshold (OUTBOX_STUCK_MINUTES): the webhook
 * deliveries, and the e-mails when SMTP_URL is set (without it they wait by design). Two indexed reads (db/monitoring.ts).
 */
async function oldestStuck(app: FastifyInstance, before: number): Promise<{ outbox: string; since: string } | undefined> {
  const { db, config } = app.ctx;
  const cutoff = isoAt(before);
  const webhook = await oldestWaiting(db, 'webhook_deliveries', cutoff);
  if (webhook) return { outbox: 'webhook outbox', since: webhook };
  const email = config.smtpUrl ? await oldestWaiting(db, 'email_outbox', cutoff) : undefined;
  return email ? { outbox: 'e-mail outbox', since: email } : undefined;
}
