import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { errors } from '../../lib/errors.js';
import { errorResponses } from '../../lib/schemas.js';
import { HealthStatus } from './health.schemas.js';

/** Liveness (the process answers) and readiness (the database answers), unauthenticated. */
export default async function healthRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/healthz',
    { schema: { tags: ['operations'], security: [], response: { 200: HealthStatus, ...errorResponses(400) } } },
    async () => ({
      status: 'ok' as const,
    }),
  );

  app.get(
    '/readyz',
    { schema: { tags: ['operations'], security: [], response: { 200: HealthStatus, ...errorResponses(400, 503) } } },
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
      return { status: 'ok' as const };
    },
  );
}
