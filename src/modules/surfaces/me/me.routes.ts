import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { apiPrincipalOf } from '../../../lib/caller.js';
import { READ_ERRORS } from '../../../lib/schemas.js';
import { Me } from './me.schemas.js';
import { describeCaller } from './me.service.js';

export default async function meRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/me',
    {
      config: { policy: { clientSession: 'read' } },
      schema: {
        tags: ['me'],
        operationId: 'retrieveMe',
        summary: 'The caller',
        description:
          'Who the credentials are: `type` workspace (a workspace key), app (an app key, or a bearer token minted from one), ' +
          'internalUser or client (a session token through an app key), with the API key behind them and, for a session, its user. ' +
          'Every caller may ask, a client session included.',
        response: { 200: Me, ...READ_ERRORS },
      },
    },
    async (request) => describeCaller(apiPrincipalOf(request.caller)),
  );
}
