import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { ADMIN_WRITE_ERRORS, adminDoc, DeletedBody, Page, WorkspaceParams, WRITE_ERRORS } from '../../../lib/schemas.js';
import {
  AppEventBody,
  AppEventParams,
  AppEventRecorded,
  CreatedWebhookEndpoint,
  DeliveryListQuery,
  DeliveryParams,
  EndpointListQuery,
  EndpointParams,
  ReplayFailed,
  Replayed,
  RotatedSecret,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEndpointCreate,
} from './webhooks.schemas.js';
import * as service from './webhooks.service.js';

/** `POST /v1/webhooks/{event}`: what the SDK's sendWebhook(event, payload) calls. */
export default async function appEventRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { database } = app.ctx;
  app.post(
    '/webhooks/:event',
    {
      // An app emits events in an end user's session too (the SDK's sendWebhook from a client's view).
      config: { policy: { clientSession: 'write', portal: false } },
      schema: {
        tags: ['webhooks'],
        operationId: 'emitAppEvent',
        summary: 'Emit an app event: recorded as appEventEmitted and delivered to the endpoints subscribed to app.eventEmitted',
        description: 'Only an app (its key, bearer token or session) emits events: a workspace key is a 403.',
        params: AppEventParams,
        body: AppEventBody,
        response: { 200: AppEventRecorded, ...WRITE_ERRORS },
      },
    },
    async (request) => service.emitAppEvent(database, request.caller, request.params.event, request.body),
  );
}

/** Webhook endpoints, their delivery log and replays on the admin surface (as `portal webhooks …`). */
export async function webhookAdminRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { database, pageTokens, webhooks } = app.ctx;
  const wake = () => webhooks.worker?.wake();
  const base = '/workspaces/:workspaceId/webhooks';

  app.post(
    base,
    {
      schema: {
        ...adminDoc,
        operationId: 'adminCreateWebhookEndpoint',
        summary: 'Create a webhook endpoint: its signing secret is answered only now',
        description:
          'The endpoint gets the events it subscribes to, signed per Standard Webhooks with its secret, which this answer alone ' +
          'shows. As `portal webhooks create`.',
        params: WorkspaceParams,
        body: WebhookEndpointCreate,
        response: { 200: CreatedWebhookEndpoint, ...ADMIN_WRITE_ERRORS },
      },
    },
    async (request) => service.createEndpoint(database, request.caller, request.body, webhooks.settings),
  );
  app.get(
    base,
    {
      schema: {
        ...adminDoc,
        operationId: 'adminListWebhookEndpoints',
        summary: 'List webhook endpoints, newest first',
        description: 'Every endpoint of the workspace, with its events and whether it is enabled (and why not); no secret.',
        params: WorkspaceParams,
        querystring: EndpointListQuery,
        response: { 200: Page(WebhookEndpoint), ...ADMIN_WRITE_ERRORS },
      },
    },
    async (request) => service.listEndpoints(database, request.caller, request.query, pageTokens),
  );
  app.delete(
    `${base}/:endpointId`,
    {
      schema: {
        ...adminDoc,
        operationId: 'adminDeleteWebhookEndpoint',
        summary: 'Delete a webhook endpoint (its deliveries go with it)',
        description: 'For good, with its deliveries and their log.',
        params: EndpointParams,
        response: { 200: DeletedBody, ...ADMIN_WRITE_ERRORS },
      },
    },
    async (request) => service.deleteEndpoint(database, request.caller, request.params.endpointId),
  );
  for (const [action, enabled] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    app.post(
      `${base}/:endpointId/${action}`,
      {
        schema: {
          ...adminDoc,
          operationId: enabled ? 'adminEnableWebhookEndpoint' : 'adminDisableWebhookEndpoint',
          summary: enabled ? 'Enable an endpoint (clears why it was disabled)' : 'Disable an endpoint',
          description: enabled
            ? 'It receives deliveries again; why the service disabled it (a 410 Gone, 5 days of failures), if it did, is cleared.'
            : 'It receives no delivery until it is enabled again.',
          params: EndpointParams,
          response: { 200: WebhookEndpoint, ...ADMIN_WRITE_ERRORS },
        },
      },
      async (request) => service.setEndpointEnabled(database, request.caller, request.params.endpointId, enabled),
    );
  }
  app.post(
    `${base}/:endpointId/rotate-secret`,
    {
      schema: {
        ...adminDoc,
        operationId: 'adminRotateWebhookSecret',
        summary: 'Rotate the signing secret: for 24 hours both secrets sign every delivery',
        description:
          'The new secret is shown in this answer only; for 24 hours every delivery carries a signature by each secret, so a receiver ' +
          'can switch without losing one.',
        params: EndpointParams,
        response: { 200: RotatedSecret, ...ADMIN_WRITE_ERRORS },
      },
    },
    async (request) => service.rotateSecret(database, request.caller, request.params.endpointId, webhooks.settings),
  );
  app.get(
    '/workspaces/:workspaceId/webhook-deliveries',
    {
      schema: {
        ...adminDoc,
        operationId: 'adminListWebhookDeliveries',
        summary: 'The delivery log, newest first: each delivery with every attempt (status, duration, response excerpt, next attempt)',
        description: 'Filters: `endpointId`, `status`. As `portal webhooks deliveries`.',
        params: WorkspaceParams,
        querystring: DeliveryListQuery,
        response: { 200: Page(WebhookDelivery), ...ADMIN_WRITE_ERRORS },
      },
    },
    async (request) => service.listDeliveries(database, request.caller, request.query, pageTokens),
  );
  app.post(
    '/workspaces/:workspaceId/webhook-deliveries/:deliveryId/replay',
    {
      schema: {
        ...adminDoc,
        operationId: 'adminReplayWebhookDelivery',
        summary: 'Send a delivery again, with the same webhook-id, from the start of the retry schedule',
        description:
          'The receiver gets the same `webhook-id`, so it can recognise a delivery it already handled; attempts start over on the retry schedule.',
        params: DeliveryParams,
        response: { 200: Replayed, ...ADMIN_WRITE_ERRORS },
      },
    },
    async (request) => service.replayDelivery(database, request.caller, request.params.deliveryId, wake),
  );
  app.post(
    '/workspaces/:workspaceId/webhook-deliveries/replay',
    {
      schema: {
        ...adminDoc,
        operationId: 'adminReplayFailedWebhookDeliveries',
        summary: 'Send again every delivery that failed at or after failedSince',
        description:
          'Each delivery that failed at or after `failedSince` starts over on the retry schedule, with its `webhook-id`; answers how many.',
        params: WorkspaceParams,
        body: ReplayFailed,
        response: { 200: Replayed, ...ADMIN_WRITE_ERRORS },
      },
    },
    async (request) => service.replayFailedSince(database, request.caller, request.body.failedSince, wake),
  );
}
