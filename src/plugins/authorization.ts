import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { type RoutePolicy, authorize } from '../lib/policy.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Who beyond keys and bearer tokens may call the route (lib/policy.ts); declared by each module beside its routes. */
    policy?: RoutePolicy;
  }
}

/** Contract §2's permissions for every /v1 route, from the route's declared policy, before its body is validated. */
export default fp(
  async function authorization(app: FastifyInstance) {
    app.addHook('preValidation', async function checkPermission(request: FastifyRequest) {
      authorize(request.caller.principal, request.routeOptions.config.policy, request.method);
    });
  },
  { name: 'authorization', dependencies: ['auth'] },
);
