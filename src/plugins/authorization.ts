import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { errors } from '../lib/errors.js';
import type { Principal } from './auth.js';

/** What a route does, for the permission rules; by default GET/HEAD read and other methods write. */
export type Action = 'read' | 'write' | 'clients:delete' | 'companies:delete' | 'billing:create' | 'notifications:readState';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Overrides the action the method implies. */
    action?: Action;
    /** The route exists for client sessions (their own data); every other route answers them 404. */
    clientSession?: boolean;
  }
}

/** Actions `staff` may not take (contract §2). */
const ADMIN_ONLY = new Set<Action>(['clients:delete', 'companies:delete', 'billing:create']);

/**
 * Contract §2's permissions, decided here for every route from what the route declares, before its
 * body is validated. What a principal may *see* is applied by the repositories (lib/access.ts).
 */
export function authorize(principal: Principal, action: Action, clientSession: boolean): void {
  if (principal.kind === 'client') {
    if (!clientSession) throw errors.notFound();
    if (action !== 'read' && action !== 'notifications:readState') throw errors.forbidden('A client session may not change this.');
    return;
  }
  if (principal.kind === 'internalUser' && principal.role !== 'admin' && ADMIN_ONLY.has(action)) {
    throw errors.forbidden('Staff may not do this; an admin may.');
  }
}

export default fp(
  async function authorization(app: FastifyInstance) {
    app.addHook('preValidation', async function checkPermission(request: FastifyRequest) {
      const principal = request.principal;
      if (principal.kind === 'workspace' || principal.kind === 'app') return; // the whole workspace
      const config = request.routeOptions.config;
      const action = config.action ?? (request.method === 'GET' || request.method === 'HEAD' ? 'read' : 'write');
      authorize(principal, action, config.clientSession === true);
    });
  },
  { name: 'authorization', dependencies: ['auth'] },
);
