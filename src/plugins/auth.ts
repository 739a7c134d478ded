import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { errors } from '../lib/errors.js';
import { verifyApiKey } from '../modules/api-keys/api-keys.service.js';
import type { Actor } from '../modules/audit-log/audit-log.writer.js';

/**
 * The authenticated caller. Every kind of credential (workspace key, app key, and later bearer tokens
 * and end-user sessions) resolves to this one shape, so routes and limits never look at headers.
 */
export interface Principal {
  kind: 'workspace' | 'app' | 'internalUser' | 'client';
  workspaceId: string;
  /** The API key behind the request (the bearer token's or session's key included). */
  apiKeyId: string;
  appId: string | null;
  /** Identity of the burst bucket: the key, or the end user for a session. */
  rateLimitKey: string;
  /** Session requests (an app acting for an end user) are exempt from the daily quota. */
  quotaExempt: boolean;
  dailyQuota: number;
  internalUserId?: string;
  clientId?: string;
  companyId?: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Reads the credentials of contract §2 and sets `request.principal`, or answers 401. */
async function authenticate(this: FastifyInstance, request: FastifyRequest): Promise<void> {
  const header = request.headers['x-api-key'];
  if (typeof header !== 'string' || header.length === 0) {
    throw errors.unauthorized('Missing credentials: send your API key in the X-API-KEY header.');
  }
  const parts = header.trim().split('/');
  if (parts.length > 2) throw errors.unauthorized('Session credentials are not supported yet.');
  const [namedWorkspace, key] = parts.length === 2 ? parts : [undefined, parts[0]];
  if (namedWorkspace !== undefined && !UUID.test(namedWorkspace)) throw errors.unauthorized();
  const row = await verifyApiKey(this.ctx.db, key);
  if (!row || (namedWorkspace !== undefined && namedWorkspace.toLowerCase() !== row.workspace_id)) {
    throw errors.unauthorized();
  }
  request.principal = {
    kind: row.kind,
    workspaceId: row.workspace_id,
    apiKeyId: row.id,
    appId: row.app_id,
    rateLimitKey: `key:${row.id}`,
    quotaExempt: false,
    dailyQuota: row.daily_quota,
  };
}

/** Adds the auth hook to every route of the scope it is registered in (the /v1 routes). */
export default fp(
  async function auth(app: FastifyInstance) {
    app.decorateRequest('principal', null as unknown as Principal);
    app.addHook('onRequest', authenticate);
  },
  { name: 'auth' },
);

/** The audit actor of an authenticated request (source `platform`, the key as `apiKeyRef`). */
export function actorOf(request: FastifyRequest, at: number): Actor {
  const p = request.principal;
  const userAgent = request.headers['user-agent'];
  return {
    workspaceId: p.workspaceId,
    source: 'platform',
    actorId: p.internalUserId ?? p.clientId ?? null,
    actorType: p.internalUserId ? 'internalUser' : p.clientId ? 'clientUser' : null,
    actorRole: null,
    apiKeyRef: p.apiKeyId,
    companyId: p.clientId ? (p.companyId ?? null) : null,
    ip: request.ip ?? null,
    userAgent: typeof userAgent === 'string' ? userAgent.slice(0, 512) : null,
    at,
  };
}
