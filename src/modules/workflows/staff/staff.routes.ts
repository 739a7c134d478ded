import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { ADMIN_WRITE_ERRORS, DeletedBody, PathId, adminDoc } from '../../../lib/schemas.js';
import { InternalUser, InternalUserAccessUpdate } from '../../resources/internal-users/index.js';
import * as service from './staff.service.js';

const InternalUserParams = Type.Object(
  { workspaceId: PathId('workspace id'), id: PathId('internal user id') },
  { additionalProperties: false },
);

/** The staff lifecycle on the admin surface: an internal user's access changed, or the user removed. */
export default async function staffAdminRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { database } = app.ctx;

  app.patch(
    '/workspaces/:workspaceId/internal-users/:id',
    {
      schema: {
        ...adminDoc,
        operationId: 'adminUpdateInternalUserAccess',
        summary: 'Change an internal user’s role or the companies it may see',
        description:
          'Records internalUserAccessLevelChanged (role) and internalUserClientVisibilitySet (companies) for what changes. ' +
          'The user’s sessions carry the new access on their next request (within a second on other processes). ' +
          'The workspace’s last admin cannot be made staff (409).',
        params: InternalUserParams,
        body: InternalUserAccessUpdate,
        response: { 200: InternalUser, ...ADMIN_WRITE_ERRORS },
      },
    },
    async (request) => service.changeInternalUserAccess(database, request.caller, request.params.id, request.body),
  );

  app.delete(
    '/workspaces/:workspaceId/internal-users/:id',
    {
      schema: {
        ...adminDoc,
        operationId: 'adminDeleteInternalUser',
        summary: 'Remove an internal user',
        description:
          'Its sessions end at once (within a second on other processes); tasks assigned to it stay, unassigned; what it ' +
          'wrote keeps naming it; its notifications go. Records internalUserDeleted. The workspace’s last admin cannot be ' +
          'removed (409).',
        params: InternalUserParams,
        response: { 200: DeletedBody, ...ADMIN_WRITE_ERRORS },
      },
    },
    async (request) => {
      await service.removeInternalUser(database, request.caller, request.params.id);
      return { id: request.params.id, object: 'internalUser', deleted: true as const };
    },
  );
}
