import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { errors } from '../../../lib/errors.js';
import { errorResponses } from '../../../lib/schemas.js';
import { HealthStatus } from './health.schemas.js';

/**
 * Liveness (the process answers) and readiness (the database answers, not draining), unauthenticated. Probed every few
 * seconds: their requests are not logged at info (logLevel warn), only what goes wrong.
 */
export default async function healthRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/healthz',
    {
      logLevel: 'warn',
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
      logLevel: 'warn',
      schema: {
        tags: ['operations'],
        operationId: 'checkReadiness',
        summary: 'Readiness: the database answers',
        description:
          'Public and never limited: `{status: "ok"}` when the database answers; otherwise a 503 saying so. A process shutting down answers ' +
          '503, so a load balancer stops sending it requests. Redis unreachable is no reason (each process then limits on its own, metric ' +
          '`portal_limit_state_shared`), nor is a stuck outbox (metric `portal_outbox_stuck`): either would take every replica out at once.',
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
      return { status: 'ok' as const };
    },
  );
}
