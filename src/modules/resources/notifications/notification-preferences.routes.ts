import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { IdParams, READ_ERRORS, WRITE_ERRORS } from '../../../lib/schemas.js';
import { NotificationPreferenceUpdate, NotificationPreferences } from './notification-preferences.schemas.js';
import * as preferences from './notification-preferences.service.js';

const tags = ['internal users'];

/** An internal user's choice of surfaces for each notification setting the workspace's installs declare. */
export default async function notificationPreferenceRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { database } = app.ctx;

  app.get(
    '/internal-users/:id/notification-preferences',
    {
      schema: {
        tags,
        operationId: 'retrieveNotificationPreferences',
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
        operationId: 'updateNotificationPreferences',
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
