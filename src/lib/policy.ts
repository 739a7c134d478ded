import type { ApiPrincipal } from './caller.js';
import { errors } from './errors.js';

/**
 * What a route allows beyond "the whole workspace for keys and bearer tokens", declared by each
 * module beside its routes (`config: { policy }`). What a caller may *see* is applied by the
 * repositories through `Access`; this decides whether it may call the route at all.
 */
export interface RoutePolicy {
  /**
   * Client sessions: `none` (the default: the route answers them 404, as if absent), `read` (reachable;
   * any method but GET/HEAD is a 403) or `write` (reachable for every method).
   */
  clientSession?: 'none' | 'read' | 'write';
  /** false: internal users with the `staff` role get 403 (an admin may). Default true. */
  staff?: boolean;
}

/** A route's policy in full, defaults applied: published as the operation's `x-policy` (test/route-permissions.test.ts walks it). */
export function policyOf(policy: RoutePolicy | undefined): Required<RoutePolicy> {
  return { clientSession: policy?.clientSession ?? 'none', staff: policy?.staff ?? true };
}

const isRead = (method: string) => method === 'GET' || method === 'HEAD';

/** Contract §2's permissions for one request, before its body is validated. */
export function authorize(principal: ApiPrincipal, policy: RoutePolicy | undefined, method: string): void {
  if (principal.kind !== 'clientSession' && principal.kind !== 'internalUserSession') return; // keys and tokens: the whole workspace
  const { clientSession, staff } = policyOf(policy);
  if (principal.kind === 'clientSession') {
    if (clientSession === 'none') throw errors.notFound();
    if (clientSession === 'read' && !isRead(method)) throw errors.forbidden('A client session may not change this.');
    return;
  }
  if (principal.role !== 'admin' && !staff) {
    throw errors.forbidden('Staff may not do this; an admin may.');
  }
}
