import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { ApiError, errors } from '../lib/errors.js';
import { verifyApiKey } from '../modules/api-keys/api-keys.service.js';
import type { Actor } from '../modules/audit-log/audit-log.writer.js';
import { verifySession } from '../modules/sessions/sessions.service.js';
import { verifyBearerToken } from '../modules/tokens/tokens.service.js';

/**
 * The authenticated caller. Every kind of credential (workspace key, app key, bearer token, end-user
 * session) resolves to this one shape, so routes and limits never look at headers.
 */
export interface Principal {
  kind: 'workspace' | 'app' | 'internalUser' | 'client';
  /** How the caller authenticated: an API key, a bearer token (POST /v1/token) or a session. */
  credential: 'apiKey' | 'bearer' | 'session';
  workspaceId: string;
  /** The API key behind the request (the bearer token's or session's key included). */
  apiKeyId: string;
  appId: string | null;
  /** Identity of the burst bucket: the key (a bearer token's key too), or the end user for a session. */
  rateLimitKey: string;
  /** Session requests (an app acting for an end user) are exempt from the daily quota. */
  quotaExempt: boolean;
  dailyQuota: number;
  /** The session's tokenId. */
  sessionId?: string;
  /** Internal-user session: the user, its role and the companies it may see (null: every company). */
  internalUserId?: string;
  role?: 'admin' | 'staff';
  companyAccessList?: readonly string[] | null;
  /** Client session: the client, the session's company, and every company of the client. */
  clientId?: string;
  companyId?: string;
  clientCompanyIds?: readonly string[];
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Reads the credentials of contract §2 and sets `request.principal`, or answers 401. */
async function authenticate(this: FastifyInstance, request: FastifyRequest): Promise<void> {
  const limiter = this.ctx.authFailures;
  const now = this.ctx.clock.now();
  limiter.check(request.ip, now);
  try {
    request.principal = await principalOf(this, request, now);
  } catch (error) {
    if (error instanceof ApiError && error.statusCode === 401) throw await limiter.fail(request.ip, now, error);
    throw error;
  }
}

const BEARER = /^Bearer +(\S+) *$/i;

/** X-API-KEY when sent (key, workspace/key or a session), else `Authorization: Bearer`. Every refusal is a 401. */
async function principalOf(app: FastifyInstance, request: FastifyRequest, now: number): Promise<Principal> {
  const header = request.headers['x-api-key'];
  if (typeof header === 'string' && header.length > 0) return principalOfApiKeyHeader(app, header.trim(), now);
  const authorization = request.headers.authorization;
  if (typeof authorization === 'string' && authorization.length > 0) {
    const token = BEARER.exec(authorization)?.[1];
    if (!token) throw errors.unauthorized('Unsupported Authorization header: send Authorization: Bearer <token from POST /v1/token>, or your API key in X-API-KEY.');
    return principalOfBearer(app, token, now);
  }
  throw errors.unauthorized('Missing credentials: send your API key in the X-API-KEY header.');
}

async function principalOfApiKeyHeader(app: FastifyInstance, header: string, now: number): Promise<Principal> {
  const parts = header.split('/');
  if (parts.length > 3) throw errors.unauthorized();
  const [namedWorkspace, key] = parts.length === 1 ? [undefined, parts[0]] : parts;
  if (namedWorkspace !== undefined && !UUID.test(namedWorkspace)) throw errors.unauthorized();
  if (parts.length === 3) return principalOfSession(app, { workspaceId: namedWorkspace!, apiKey: key, tokenId: parts[2] }, now);
  const row = await verifyApiKey(app.ctx.db, key);
  if (!row || (namedWorkspace !== undefined && namedWorkspace.toLowerCase() !== row.workspace_id)) {
    throw errors.unauthorized();
  }
  return {
    kind: row.kind,
    credential: 'apiKey',
    workspaceId: row.workspace_id,
    apiKeyId: row.id,
    appId: row.app_id,
    rateLimitKey: `key:${row.id}`,
    quotaExempt: false,
    dailyQuota: row.daily_quota,
  };
}

/** A bearer token has its key's rights, bucket and quota (contract §1, §6); it is always an app's. */
async function principalOfBearer(app: FastifyInstance, token: string, now: number): Promise<Principal> {
  const row = await verifyBearerToken(app.ctx.db, token, now);
  if (!row) throw errors.unauthorized();
  return {
    kind: 'app',
    credential: 'bearer',
    workspaceId: row.workspace_id,
    apiKeyId: row.api_key_id,
    appId: row.app_id,
    rateLimitKey: `key:${row.api_key_id}`,
    quotaExempt: false,
    dailyQuota: row.daily_quota,
  };
}

/** A session acts as its end user: the user's own burst bucket, exempt from the daily quota (contract §6). */
async function principalOfSession(app: FastifyInstance, presented: { workspaceId: string; apiKey: string; tokenId: string }, now: number): Promise<Principal> {
  const session = await verifySession(app.ctx.db, presented, now);
  if (!session) throw errors.unauthorized();
  const common = {
    credential: 'session' as const,
    workspaceId: session.workspaceId,
    apiKeyId: session.apiKeyId,
    appId: session.appId,
    quotaExempt: true,
    dailyQuota: session.dailyQuota,
    sessionId: session.tokenId,
  };
  if (session.internalUser) {
    const user = session.internalUser;
    return { ...common, kind: 'internalUser', rateLimitKey: `internalUser:${user.id}`, internalUserId: user.id, role: user.role, companyAccessList: user.companyAccessList };
  }
  const client = session.client!;
  return { ...common, kind: 'client', rateLimitKey: `client:${client.id}`, clientId: client.id, companyId: client.companyId, clientCompanyIds: client.companyIds };
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
    actorRole: p.internalUserId ? (p.role ?? null) : null,
    apiKeyRef: p.apiKeyId,
    companyId: p.clientId ? (p.companyId ?? null) : null,
    ip: request.ip ?? null,
    userAgent: typeof userAgent === 'string' ? userAgent.slice(0, 512) : null,
    at,
  };
}
