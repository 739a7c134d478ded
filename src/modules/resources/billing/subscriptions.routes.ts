import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { RoutePolicy } from '../../../lib/policy.js';
import { IdParams, Page, READ_ERRORS, WRITE_ERRORS } from '../../../lib/schemas.js';
import { Subscription, SubscriptionCreate, SubscriptionListQuery } from './subscriptions.schemas.js';
import * as service from './subscriptions.service.js';

const CLIENT_READS: RoutePolicy = { clientSession: 'read' };
const tags = ['billing'];

export default async function subscriptionRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { database, pageTokens } = app.ctx;
  const wake = () => app.ctx.billing.worker?.wake();

  app.get(
    '/subscriptions',
    {
      config: { policy: CLIENT_READS },
      schema: {
        tags,
        operationId: 'listSubscriptions',
        summary: 'List subscriptions, newest first',
        description: 'Filters: `clientId`, `companyId`. A client session sees its own subscriptions and its companies’.',
        querystring: SubscriptionListQuery,
        response: { 200: Page(Subscription), ...READ_ERRORS },
      },
    },
    async (request) => service.listSubscriptions(database, request.caller, request.query, pageTokens),
  );
  app.post(
    '/subscriptions',
    {
      config: { policy: { clientSession: 'read', staff: false } },
      schema: {
        tags,
        operationId: 'createSubscription',
        summary: 'Create a subscription: it bills itself, an invoice at the start of each period',
        description:
          'Periods are anniversary-based from scheduleStartDate (a start on the 29th–31st falls on the last day of shorter months); ' +
          'scheduleEndDate and scheduleIterations stop it. Each period’s invoice has billingReason subscriptionCycle.',
        body: SubscriptionCreate,
        response: { 200: Subscription, ...WRITE_ERRORS },
      },
    },
    async (request) => service.createSubscription(database, request.caller, request.body, wake),
  );
  app.get(
    '/subscriptions/:id',
    {
      config: { policy: CLIENT_READS },
      schema: {
        tags,
        operationId: 'retrieveSubscription',
        summary: 'Retrieve a subscription',
        description: 'A client session reads its own subscriptions and its companies’; any other id is a 404.',
        params: IdParams,
        response: { 200: Subscription, ...READ_ERRORS },
      },
    },
    async (request) => service.getSubscription(database, request.caller, request.params.id),
  );
  app.post(
    '/subscriptions/:id/cancel',
    {
      config: { policy: CLIENT_READS },
      schema: {
        tags,
        operationId: 'cancelSubscription',
        summary: 'Cancel an active or not yet started subscription (409 otherwise): no further invoice',
        description:
          'Only an `active` or `notStarted` subscription (any other is a 409); no invoice follows. Records subscriptionCancelled. A ' +
          'client session gets a 403.',
        params: IdParams,
        response: { 200: Subscription, ...WRITE_ERRORS },
      },
    },
    async (request) => service.cancelSubscription(database, request.caller, request.params.id),
  );
}
