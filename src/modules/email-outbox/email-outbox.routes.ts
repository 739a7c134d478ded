import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { systemCaller } from '../../lib/caller.js';
import { Page, errorResponses } from '../../lib/schemas.js';
import { WorkspaceParams } from '../sessions/sessions.schemas.js';
import { OutboxEmail, OutboxListQuery } from './email-outbox.schemas.js';
import { listOutbox } from './email-outbox.service.js';

/** The e-mail outbox on the admin surface (as `portal outbox list`). */
export default async function emailOutboxAdminRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { database, clock, pageTokens } = app.ctx;
  app.get(
    '/workspaces/:workspaceId/outbox',
    {
      schema: {
        tags: ['admin'],
        security: [{ adminToken: [] }],
        summary: 'The workspace’s e-mail outbox, newest first: what is queued, sent or failed, with each one’s attempts',
        params: WorkspaceParams,
        querystring: OutboxListQuery,
        response: { 200: Page(OutboxEmail), ...errorResponses(400, 401, 404, 429, 500, 503) },
      },
    },
    async (request) => listOutbox(database, systemCaller(request.params.workspaceId.toLowerCase(), clock.now()), request.query, pageTokens),
  );
}
