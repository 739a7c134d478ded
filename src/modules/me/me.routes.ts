import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { apiPrincipalOf } from '../../lib/caller.js';
import { READ_ERRORS } from '../../lib/schemas.js';
import { Me } from './me.schemas.js';
import { describeCaller } from './me.service.js';

export default async function meRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/me',
    {
      config: { policy: { clientSession: 'read' } },
      schema: { tags: ['me'], summary: 'The caller', response: { 200: Me, ...READ_ERRORS } },
    },
    async (request) => describeCaller(apiPrincipalOf(request.caller)),
  );
}
