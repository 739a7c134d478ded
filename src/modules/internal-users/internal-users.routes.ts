import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { IdParams, Page, READ_ERRORS, WRITE_ERRORS } from '../../lib/schemas.js';
import { ADMIN_WRITE_ERRORS, adminDoc, operatorOn } from '../admin/admin-surface.js';
import { WorkspaceParams } from '../sessions/sessions.schemas.js';
import { InternalUser, InternalUserCreate, InternalUserListQuery } from './internal-users.schemas.js';
import * as service from './internal-users.service.js';
import { NotificationPreferenceUpdate, NotificationPreferences } from './notification-preferences.schemas.js';
import * as preferences from './notification-preferences.service.js';

const tags = ['internal users'];

/** Internal users are created by the operator (contract §3, §7: below); only their notification preferences change here. */
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

  app.get(
    '/internal-users/:id/notification-preferences',
    {
      schema: {
        tags,
        summary: 'An internal user’s delivery choice for every declared notification setting',
        description: "Unset surfaces follow the setting's default (an omitted default surface is off).",
        params: IdParams,
        response: { 200: NotificationPreferences, ...READ_ERRORS },
      },
    },
    async (request) => preferences.getNotificationPreferences(database, request.caller, request.params.id),
  );

  app.patch(
    '/internal-users/:id/notification-preferences',
    {
      schema: {
        tags,
        summary: 'Set one notification setting’s surfaces for an internal user',
        description:
          'Only the surfaces given change; a surface the setting does not have is a 400. Answers the GET shape. ' +
          "An internal user's session changes its own preferences only (another user's: 403); keys and bearer tokens, anyone's.",
        params: IdParams,
        body: NotificationPreferenceUpdate,
        response: { 200: NotificationPreferences, ...WRITE_ERRORS },
      },
    },
    async (request) => preferences.setNotificationPreference(database, request.caller, request.params.id, request.body),
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
        summary: 'Create an internal user',
        description: 'Staff by default; `companyAccessList` limits the user to those companies (and their clients).',
        params: WorkspaceParams,
        body: InternalUserCreate,
        response: { 201: InternalUser, ...ADMIN_WRITE_ERRORS },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await service.createInternalUser(database, await operatorOn(app, request.params.workspaceId), request.body)),
  );
}
