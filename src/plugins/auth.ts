import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { ApiError, errors } from '../lib/errors.js';
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

/**
 * Failed authentications are limited per client IP (a bucket of `authFailuresPerMinute`, shared
 * through the limit store), so keys cannot be guessed at speed. Only failures touch the store; each
 * process remembers which IPs are out of tries and refuses them before verifying anything.
 */
class AuthFailureLimiter {
  private readonly blockedUntil = new Map<string, number>();
  constructor(private readonly app: FastifyInstance) {}

  /** Throws 429 while this IP has no tries left. */
  check(ip: string, now: number) {
    const until = this.blockedUntil.get(ip);
    if (until === undefined) return;
    if (until > now) throw errors.rateLimited(Math.max(1, Math.ceil((until - now) / 1000)));
    this.blockedUntil.delete(ip);
  }

  /** Counts a failure; the error to answer with (429 once the IP is out of tries, else 401). */
  async fail(ip: string, now: number, error: ApiError): Promise<ApiError> {
    const perMinute = this.app.ctx.config.limits.authFailuresPerMinute;
    const perSecond = perMinute / 60;
    let result;
    try {
      result = await this.app.ctx.limitStore.bucket(`authfail:${ip}`, perMinute, perSecond, now, true);
    } catch {
      return errors.unavailable('Limit state is unavailable; retry shortly.');
    }
    if (result.tokens >= 1) return error;
    if (this.blockedUntil.size > 100_000) this.blockedUntil.clear();
    const waitMs = Math.ceil(((1 - result.tokens) / perSecond) * 1000);
    this.blockedUntil.set(ip, now + waitMs);
    return result.allowed ? error : errors.rateLimited(Math.max(1, Math.ceil(waitMs / 1000)));
  }
}

/** Reads the credentials of contract §2 and sets `request.principal`, or answers 401. */
async function authenticate(this: FastifyInstance, request: FastifyRequest): Promise<void> {
  const limiter = (this as unknown as { authFailures: AuthFailureLimiter }).authFailures;
  const now = this.ctx.clock.now();
  limiter.check(request.ip, now);
  try {
    request.principal = await principalOf(this, request);
  } catch (error) {
    if (error instanceof ApiError && error.statusCode === 401) throw await limiter.fail(request.ip, now, error);
    throw error;
  }
}

async function principalOf(app: FastifyInstance, request: FastifyRequest): Promise<Principal> {
  const header = request.headers['x-api-key'];
  if (typeof header !== 'string' || header.length === 0) {
    throw errors.unauthorized('Missing credentials: send your API key in the X-API-KEY header.');
  }
  const parts = header.trim().split('/');
  if (parts.length > 2) throw errors.unauthorized('Session credentials are not supported yet.');
  const [namedWorkspace, key] = parts.length === 2 ? parts : [undefined, parts[0]];
  if (namedWorkspace !== undefined && !UUID.test(namedWorkspace)) throw errors.unauthorized();
  const row = await verifyApiKey(app.ctx.db, key);
  if (!row || (namedWorkspace !== undefined && namedWorkspace.toLowerCase() !== row.workspace_id)) {
    throw errors.unauthorized();
  }
  return {
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
    app.decorate('authFailures', new AuthFailureLimiter(app));
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
