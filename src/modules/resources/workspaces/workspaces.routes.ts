import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { ADMIN_ERRORS, ADMIN_WRITE_ERRORS, adminDoc, Page, READ_ERRORS, WorkspaceParams } from '../../../lib/schemas.js';
import {
  CreatedWorkspace,
  OperatorWorkspace,
  Workspace,
  WorkspaceCreate,
  WorkspaceListQuery,
  WorkspaceUpdate,
} from './workspaces.schemas.js';
import * as service from './workspaces.service.js';

export default async function workspaceRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { database } = app.ctx;

  app.get(
    '/workspaces',
    {
      schema: {
        tags: ['workspaces'],
        operationId: 'retrieveWorkspace',
        summary: "The caller's workspace",
        description: 'The workspace the credentials belong to: its name and daily quota. Client sessions get a 404.',
        response: { 200: Workspace, ...READ_ERRORS },
      },
    },
    async (request) => service.getWorkspace(database, request.caller),
  );
}

/** Workspaces on the admin surface (what `portal workspaces` does), with today's use of each quota. */
export async function workspaceAdminRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { database, limitStore, pageTokens, clock, config } = app.ctx;
  const view = { limitStore, portalUrl: config.portalUrl };

  app.get(
    '/workspaces',
    {
      schema: {
        ...adminDoc,
        operationId: 'adminListWorkspaces',
        summary: 'List workspaces',
        description:
          'Newest first, with `usedToday`: the requests counted against the daily quota this UTC day; and `logoUrl` where a logo is set.',
        querystring: WorkspaceListQuery,
        response: { 200: Page(OperatorWorkspace), ...ADMIN_ERRORS },
      },
    },
    async (request) => service.listOperatorWorkspaces(database, view, request.query, pageTokens, clock.now()),
  );

  app.post(
    '/workspaces',
    {
      schema: {
        ...adminDoc,
        operationId: 'adminCreateWorkspace',
        summary: 'Create a workspace',
        description: 'With its first workspace key, shown only in this answer. The daily quota defaults to 2,000.',
        body: WorkspaceCreate,
        response: { 201: CreatedWorkspace, ...ADMIN_WRITE_ERRORS },
      },
    },
    async (request, reply) => reply.code(201).send(await service.createWorkspace(database, request.body, clock.now())),
  );

  app.patch(
    '/workspaces/:workspaceId',
    {
      schema: {
        ...adminDoc,
        operationId: 'adminUpdateWorkspace',
        summary: 'Rename a workspace or change its daily quota',
        description: 'A new quota applies from the next request, on every server process.',
        params: WorkspaceParams,
        body: WorkspaceUpdate,
        response: { 200: OperatorWorkspace, ...ADMIN_WRITE_ERRORS },
      },
    },
    async (request) => service.updateOperatorWorkspace(database, view, request.caller, request.body),
  );
}
