import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { ADMIN_WRITE_ERRORS, adminDoc, IdParams, Page, READ_ERRORS, WorkspaceParams } from '../../../lib/schemas.js';
import { InternalUser, InternalUserCreate, InternalUserListQuery } from './internal-users.schemas.js';
import * as service from './internal-users.service.js';

const tags = ['internal users'];

/** Internal users are created by the operator (contract §3, §7: below); their notification preferences are in the notifications module. */
export default async function internalUserRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { database, pageTokens } = app.ctx;

  app.get(
    '/internal-users',
    {
      schema: {
        tags,
        operationId: 'listInternalUsers',
        summary: 'List internal users, newest first',
        description:
          'The workspace’s staff, created on the admin surface or with `portal internal-users create`. Client sessions get a 404.',
        querystring: InternalUserListQuery,
        response: { 200: Page(InternalUser), ...READ_ERRORS },
      },
    },
    async (request) => service.listInternalUsers(database, request.caller, request.query, pageTokens),
  );

  app.get(
    '/internal-users/:id',
    {
      schema: {
        tags,
        operationId: 'retrieveInternalUser',
        summary: 'Get an internal user',
        description: 'Any other id, another workspace’s included, is a 404. Client sessions get a 404.',
        params: IdParams,
        response: { 200: InternalUser, ...READ_ERRORS },
      },
    },
    async (request) => service.getInternalUser(database, request.caller, request.params.id),
  );
}

/** Internal users are created on the admin surface (contract §7: what `portal internal-users create` does). */
export async function internalUserAdminRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { database } = app.ctx;

  app.post(
    '/workspaces/:workspaceId/internal-users',
    {
      schema: {
        ...adminDoc,
        operationId: 'adminCreateInternalUser',
        summary: 'Create an internal user',
        description: 'Staff by default; `companyAccessList` limits the user to those companies (and their clients).',
        params: WorkspaceParams,
        body: InternalUserCreate,
        response: { 201: InternalUser, ...ADMIN_WRITE_ERRORS },
      },
    },
    async (request, reply) => reply.code(201).send(await service.createInternalUser(database, request.caller, request.body)),
  );
}
