import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { IdParams, Page, READ_ERRORS } from '../../lib/schemas.js';
import { InternalUser, InternalUserListQuery } from './internal-users.schemas.js';
import * as service from './internal-users.service.js';

const tags = ['internal users'];

/** Read-only: internal users are created with `portal internal-users create` (contract §3, §7). */
export default async function internalUserRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { database, pageTokens } = app.ctx;

  app.get(
    '/internal-users',
    {
      schema: {
        tags,
        summary: 'List internal users, newest first',
        querystring: InternalUserListQuery,
        response: { 200: Page(InternalUser), ...READ_ERRORS },
      },
    },
    async (request) => service.listInternalUsers(database, request.caller, request.query, pageTokens),
  );

  app.get(
    '/internal-users/:id',
    { schema: { tags, summary: 'Get an internal user', params: IdParams, response: { 200: InternalUser, ...READ_ERRORS } } },
    async (request) => service.getInternalUser(database, request.caller, request.params.id),
  );
}
