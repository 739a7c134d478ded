import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction, preValidationHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import { apiPrincipalOf } from '../lib/caller.js';
import { type RoutePolicy, authorize } from '../lib/policy.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Who beyond keys and bearer tokens may call the route (lib/policy.ts); declared by each module beside its routes. */
    policy?: RoutePolicy;
  }
}

/**
 * Contract §2's permissions for every /v1 route, from the route's declared policy, before its body is
 * validated: the check is added to each route as it is declared, with the route's policy in hand
 * (reading it per request through `request.routeOptions` would build an object every time).
 */
export default fp(
  async function authorization(app: FastifyInstance) {
    app.addHook('onRoute', (route) => {
      const policy = route.config?.policy;
      // Callback style: a synchronous check needs no promise.
      const checkPermission = (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) => {
        try {
          authorize(apiPrincipalOf(request.caller), policy, request.method);
        } catch (error) {
          return done(error as Error);
        }
        done();
      };
      const own = route.preValidation;
      route.preValidation = [checkPermission, ...(own === undefined ? [] : Array.isArray(own) ? own : [own])] as preValidationHookHandler[];
    });
  },
  { name: 'authorization', dependencies: ['auth'] },
);
