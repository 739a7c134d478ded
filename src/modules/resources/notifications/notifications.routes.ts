import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { RoutePolicy } from '../../../lib/policy.js';
import { DELETE_ERRORS, DeletedBody, IdParams, Page, READ_ERRORS, WRITE_ERRORS } from '../../../lib/schemas.js';
import { Notification, NotificationCreate, NotificationListQuery } from './notifications.schemas.js';
import * as service from './notifications.service.js';

/** A client session reads its own notifications and marks them read or unread; it creates and deletes none (403). */
const CLIENT_READS: RoutePolicy = { clientSession: 'read' };
const CLIENT_MARKS: RoutePolicy = { clientSession: 'write' };
const tags = ['notifications'];

const NothingStored = Type.Null({
  description: 'The recipient’s preferences disable every requested target for this setting: nothing was stored or sent (empty body)',
});

export default async function notificationRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { database, pageTokens, config } = app.ctx;
  const mail: service.NotificationMail = { portalUrl: config.portalUrl, wake: app.ctx.emailDelivery?.wake.bind(app.ctx.emailDelivery) };

  app.get(
    '/notifications',
    {
      config: { policy: CLIENT_READS },
      schema: {
        tags,
        operationId: 'listNotifications',
        summary: 'List notifications, newest first (unread only unless includeRead=true)',
        description: 'A client session sees its own and those sent to its companies as a whole.',
        querystring: NotificationListQuery,
        response: { 200: Page(Notification), ...READ_ERRORS },
      },
    },
    async (request) => service.listNotifications(database, request.caller, request.query, pageTokens),
  );

  app.post(
    '/notifications',
    {
      config: { policy: CLIENT_READS },
      schema: {
        tags,
        operationId: 'createNotification',
        summary: 'Send a notification: in product, by e-mail, or both',
        description:
          'Exactly one recipient. A session sends as its own user only (a `senderId` naming anyone else is a 403); keys and bearer ' +
          'tokens name any client, internal user or company as the sender. With notificationSettingId, each target must be a surface of the setting (inProduct → product, ' +
          'email → email), and an internal user recipient’s preferences keep only the targets they enable: when none is left, ' +
          'nothing is stored and the answer is 202 with an empty body. E-mails are queued with the notification and sent after ' +
          'the commit (SMTP_URL), retried with backoff.',
        body: NotificationCreate,
        response: { 200: Notification, 202: NothingStored, ...WRITE_ERRORS },
      },
    },
    async (request, reply) => {
      const created = await service.createNotification(database, request.caller, request.body, mail);
      // An empty body, not "null": the 202 schema documents the absence (the type provider wants a null).
      if (created === undefined) return reply.code(202).send(undefined as unknown as null);
      return created;
    },
  );

  for (const [state, isRead] of [
    ['read', true],
    ['unread', false],
  ] as const) {
    app.post(
      `/notifications/:id/${state}`,
      {
        config: { policy: CLIENT_MARKS },
        schema: {
          tags,
          operationId: isRead ? 'markNotificationRead' : 'markNotificationUnread',
          summary: `Mark a notification ${state}`,
          description: 'A client session may mark its own.',
          params: IdParams,
          response: { 200: Notification, ...WRITE_ERRORS },
        },
      },
      async (request) => service.markNotification(database, request.caller, request.params.id, isRead),
    );
  }

  app.delete(
    '/notifications/:id',
    {
      config: { policy: CLIENT_READS },
      schema: {
        tags,
        operationId: 'deleteNotification',
        summary: 'Delete a notification',
        description: 'A notification the caller sees; an e-mail of it already queued or sent is not unsent. A client session gets a 403.',
        params: IdParams,
        response: { 200: DeletedBody, ...DELETE_ERRORS },
      },
    },
    async (request) => service.deleteNotification(database, request.caller, request.params.id),
  );
}

/**
 * `PORTAL_URL/notifications/{id}`, the link of a notification's e-mail: a redirect to the notification's page in
 * its workspace's portal. Outside /v1: a browser follows it with no credential.
 */
export async function notificationLinkRoutes(fastify: FastifyInstance) {
  const { database } = fastify.ctx;
  fastify.get<{ Params: { id: string } }>('/notifications/:id', { schema: { hide: true } }, async (request, reply) => {
    const at = request.url.indexOf('?');
    const landing = await service.notificationLanding(database, request.params.id, at < 0 ? '' : request.url.slice(at));
    return landing === undefined ? reply.callNotFound() : reply.redirect(landing, 302);
  });
}
