import { type ApiPrincipal, isClient, isInternalUser, isPortalPerson } from './caller.js';
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
  /**
   * false: an app's operation (minting tokens, its installs' settings and connections, its events and resources, its
   * own audit entries), which a person signed in to the portal may not call (403); its app's sessions still may. Default true.
   */
  portal?: boolean;
}

/** A route's policy in full, defaults applied: published as the operation's `x-policy` (test/route-permissions.test.ts walks it). */
export function policyOf(policy: RoutePolicy | undefined): Required<RoutePolicy> {
  return { clientSession: policy?.clientSession ?? 'none', staff: policy?.staff ?? true, portal: policy?.portal ?? true };
}

/** A method that changes nothing: what client sessions may always send, and what the cross-site rule lets through. */
export const isRead = (method: string) => method === 'GET' || method === 'HEAD';

/**
 * Contract §2's permissions for one request, before its body is validated. A person signed in to the portal is held to
 * the rules of an app's session of that person, and to `portal`.
 */
export function authorize(principal: ApiPrincipal, policy: RoutePolicy | undefined, method: string): void {
  if (!isClient(principal) && !isInternalUser(principal)) return; // keys and tokens: the whole workspace
  const { clientSession, staff, portal } = policyOf(policy);
  if (isClient(principal)) {
    if (clientSession === 'none') throw errors.notFound();
    if (clientSession === 'read' && !isRead(method)) throw errors.forbidden('A client session may not change this.');
  } else if (principal.role !== 'admin' && !staff) {
    throw errors.forbidden('Staff may not do this; an admin may.');
  }
  if (!portal && isPortalPerson(principal)) throw errors.forbidden('An app’s operation: a person signed in to the portal may not call it.');
}

/** An app's operation, which a person signed in to the portal may not call (`portal: false`); keys, tokens and app sessions as by default. */
export const APPS_ONLY: RoutePolicy = { portal: false };
