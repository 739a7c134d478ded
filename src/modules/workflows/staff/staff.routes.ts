import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { RoutePolicy } from '../../../lib/policy.js';
import {
  ADMIN_WRITE_ERRORS,
  CONFLICTING_DELETE_ERRORS,
  DeletedBody,
  IdParams,
  PathId,
  WRITE_ERRORS,
  adminDoc,
} from '../../../lib/schemas.js';
import { InternalUser, InternalUserAccessUpdate, InternalUserCreate } from '../../resources/internal-users/index.js';
import * as service from './staff.service.js';

const InternalUserParams = Type.Object(
  { workspaceId: PathId('workspace id'), id: PathId('internal user id') },
  { additionalProperties: false },
);

const InternalUserCreateQuery = Type.Object(
  {
    sendInvite: Type.Optional(
      Type.Boolean({
        description:
          'e-mail the new person a link to choose a password (7 days, once; the portal’s `reset-password` page). The link is ' +
          'in the e-mail only, never in this answer',
      }),
    ),
  },
  { additionalProperties: false },
);

/** The team is the admins’: staff get 403, client sessions 404 (as if absent); keys and bearer tokens may. */
const ADMINS_ONLY: RoutePolicy = { staff: false };

const tags = ['internal users'];

/** Who may change the team, and what nobody may do to itself: every team route's description ends so. */
const WHO =
  'Who may: keys, bearer tokens and an admin who sees every company (its app session, or signed in to the portal); staff get ' +
  'a 403, an admin limited to some companies a 403, a client session a 404. Another workspace’s user is a 404.';

/** The staff lifecycle on /v1: the team changed by an admin (or a key), as the admin surface's routes below do it. */
export default async function staffRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { database, config } = app.ctx;

  app.post(
    '/internal-users',
    {
      config: { policy: ADMINS_ONLY },
      schema: {
        tags,
        operationId: 'createInternalUser',
        summary: 'Add an internal user to the team',
        description:
          'Staff by default (`role`); `companyAccessList` limits the user to those companies and their clients ' +
          '(`isClientAccessLimited` true), absent it sees every company. An e-mail used by another internal user of the ' +
          'workspace (case-insensitively) is a 409; a company that is not the workspace’s a 400 naming `companyAccessList`. ' +
          '`sendInvite=true` e-mails the person a link to choose a password, in the same transaction. Records ' +
          `internalUserCreated (\`inviteSent\` in its context with an invite). ${WHO}`,
        querystring: InternalUserCreateQuery,
        body: InternalUserCreate,
        response: { 200: InternalUser, ...WRITE_ERRORS },
      },
    },
    async (request) =>
      service.addInternalUser(database, request.caller, request.body, {
        sendInvite: request.query.sendInvite,
        portalUrl: config.portalUrl,
      }),
  );

  app.patch(
    '/internal-users/:id',
    {
      config: { policy: ADMINS_ONLY },
      schema: {
        tags,
        operationId: 'updateInternalUserAccess',
        summary: 'Change an internal user’s role or the companies it may see',
        description:
          '`role`; `companyAccessList`: the companies it may see (and their clients), or `null` for every company. Records ' +
          'internalUserAccessLevelChanged (role) and internalUserClientVisibilitySet (companies) for what changes, nothing when ' +
          'nothing does. The user’s sessions carry the new access on their next request (within a second on other ' +
          'processes). The workspace’s last admin cannot be made staff (409); nobody changes its own access (403: another ' +
          `admin does). ${WHO}`,
        params: IdParams,
        body: InternalUserAccessUpdate,
        response: { 200: InternalUser, ...WRITE_ERRORS },
      },
    },
    async (request) => service.changeInternalUserAccess(database, request.caller, request.params.id, request.body),
  );

  app.delete(
    '/internal-users/:id',
    {
      config: { policy: ADMINS_ONLY },
      schema: {
        tags,
        operationId: 'deleteInternalUser',
        summary: 'Remove an internal user from the team',
        description:
          'Its sessions end at once, its portal sign-in too (within a second on other processes); tasks assigned to it stay, ' +
          'unassigned; what it wrote keeps naming it; its notifications go. Records internalUserDeleted. The workspace’s last ' +
          'admin cannot be removed (409: of two admins removed at once, one stays); nobody removes itself (403: another admin ' +
          `does). ${WHO}`,
        params: IdParams,
        response: { 200: DeletedBody, ...CONFLICTING_DELETE_ERRORS },
      },
    },
    async (request) => {
      await service.removeInternalUser(database, request.caller, request.params.id);
      return { id: request.params.id, object: 'internalUser', deleted: true as const };
    },
  );
}

/** The staff lifecycle on the admin surface: an internal user's access changed, or the user removed. */
export async function staffAdminRoutes(fastify: FastifyInstance) {
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
