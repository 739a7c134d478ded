import type { FastifyInstance } from 'fastify';
import { accessOf } from '../../lib/access.js';
import { AUTHENTICATED_ERRORS, errorResponses } from '../../lib/schemas.js';
import {
  InternalUser,
  InternalUserListQuery,
  InternalUserPage,
  InternalUserParams,
} from './internal-users.schemas.js';
import { getInternalUser, listInternalUsers } from './internal-users.service.js';

/** Read-only: internal users are created with `portal internal-users create` (contract §3, §7). */
export default async function internalUserRoutes(app: FastifyInstance) {
  app.get<{ Querystring: InternalUserListQuery }>(
    '/internal-users',
    {
      schema: {
        tags: ['internal users'],
        summary: 'List internal users, newest first',
        querystring: InternalUserListQuery,
        response: { 200: InternalUserPage, ...errorResponses(...AUTHENTICATED_ERRORS) },
      },
    },
    async (request) => {
      const { limit, nextToken } = request.query;
      const page = await listInternalUsers(app.ctx.db, accessOf(request.principal), { limit, nextToken }, app.ctx.pageTokens);
      return { data: page.rows, ...(page.nextToken ? { nextToken: page.nextToken } : {}) };
    },
  );

  app.get<{ Params: InternalUserParams }>(
    '/internal-users/:id',
    {
      schema: {
        tags: ['internal users'],
        summary: 'Get an internal user',
        params: InternalUserParams,
        response: { 200: InternalUser, ...errorResponses(...AUTHENTICATED_ERRORS) },
      },
    },
    async (request) => getInternalUser(app.ctx.db, accessOf(request.principal), request.params.id),
  );
}
