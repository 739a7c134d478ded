import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { ADMIN_ERRORS, adminDoc, Page, WorkspaceParams } from '../../../lib/schemas.js';
import { OutboxEmail, OutboxListQuery } from './email-outbox.schemas.js';
import { listOutbox } from './email-outbox.service.js';

/** The e-mail outbox on the admin surface (as `portal outbox list`). */
export default async function emailOutboxAdminRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { database, pageTokens, config } = app.ctx;
  app.get(
    '/workspaces/:workspaceId/outbox',
    {
      schema: {
        ...adminDoc,
        operationId: 'adminListOutboxEmails',
        summary: 'The workspace’s e-mail outbox, newest first: what is queued, sent or failed, with each one’s attempts',
        description:
          'As `portal outbox list`: queued, sent and failed e-mails with every attempt; filter `status`. A failed e-mail is kept, ' +
          'never deleted. While the server has no `SMTP_URL` (nothing is sent) each queued e-mail has its `text`, links included: ' +
          'local development’s inbox. With `SMTP_URL`, never.',
        params: WorkspaceParams,
        querystring: OutboxListQuery,
        response: { 200: Page(OutboxEmail), ...ADMIN_ERRORS },
      },
    },
    async (request) => listOutbox(database, request.caller, request.query, pageTokens, config),
  );
}
