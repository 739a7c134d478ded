import type { Principal } from '../plugins/auth.js';

/**
 * What a principal may see, applied by every repository query (the first argument of each), so a
 * new resource gets visibility rules by construction. Keys and bearer tokens see the whole workspace;
 * an internal user limited to some companies sees those and their clients; a client sees itself and
 * its companies.
 */
export interface Access {
  workspaceId: string;
  /** null: every company; otherwise only these companies and their clients. */
  companyIds: readonly string[] | null;
  /** A client session: only this client (and `companyIds` are its companies). */
  clientId: string | null;
}

export function accessOf(principal: Principal): Access {
  const { workspaceId } = principal;
  if (principal.kind === 'client') return { workspaceId, companyIds: principal.clientCompanyIds ?? [], clientId: principal.clientId ?? null };
  if (principal.kind === 'internalUser') return { workspaceId, companyIds: principal.companyAccessList ?? null, clientId: null };
  return { workspaceId, companyIds: null, clientId: null };
}

/** Full access to one workspace: the `portal` command and internal bookkeeping. */
export function workspaceAccess(workspaceId: string): Access {
  return { workspaceId, companyIds: null, clientId: null };
}
