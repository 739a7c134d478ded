import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { READ_ERRORS } from '../../lib/schemas.js';
import { Workspace } from './workspaces.schemas.js';
import * as service from './workspaces.service.js';

export default async function workspaceRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { database } = app.ctx;

  app.get(
    '/workspaces',
    { schema: { tags: ['workspaces'], summary: "The caller's workspace", response: { 200: Workspace, ...READ_ERRORS } } },
    async (request) => service.getWorkspace(database, request.caller),
  );
}
