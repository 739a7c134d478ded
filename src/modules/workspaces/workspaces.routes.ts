import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { errors } from '../../lib/errors.js';
import { AUTHENTICATED_ERRORS, Id, Timestamp, errorResponses } from '../../lib/schemas.js';
import { findWorkspace } from './workspaces.repository.js';

export const Workspace = Type.Object(
  {
    id: Id,
    object: Type.Literal('workspace'),
    name: Type.String(),
    dailyQuota: Type.Integer({ description: 'counted (2xx) requests allowed per UTC day' }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { title: 'Workspace' },
);

export default async function workspaceRoutes(app: FastifyInstance) {
  app.get(
    '/workspaces',
    {
      schema: {
        tags: ['workspaces'],
        summary: "The caller's workspace",
        response: { 200: Workspace, ...errorResponses(...AUTHENTICATED_ERRORS) },
      },
    },
    async (request) => {
      const row = await findWorkspace(app.ctx.db, request.principal.workspaceId);
      if (!row) throw errors.notFound('Workspace');
      return {
        id: row.id,
        object: 'workspace' as const,
        name: row.name,
        dailyQuota: row.daily_quota,
        createdAt: row.created_at,
        updatedAt: row.updated_at,
      };
    },
  );
}
