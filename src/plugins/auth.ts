import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { type ApiPrincipal, type Caller, callerOf } from '../lib/caller.js';
import { ApiError, errors } from '../lib/errors.js';
import { isUuid } from '../lib/validate.js';
import { verifyApiKey } from '../modules/api-keys/api-keys.service.js';
import { verifySession } from '../modules/sessions/sessions.service.js';
import { verifyBearerToken } from '../modules/tokens/tokens.service.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Who is calling (principal, access, actor); set once by the auth hook on every /v1 route. */
    caller: Caller<ApiPrincipal>;
  }
}

const BEARER = /^Bearer +(\S+) *$/i;

/** Reads the credentials of contract §2 and sets `request.caller`, or answers 401. */
async function authenticate(this: FastifyInstance, request: FastifyRequest): Promise<void> {
  const limiter = this.ctx.authFailures;
  const now = this.ctx.clock.now();
  limiter.check(request.ip, now);
  let principal: ApiPrincipal;
  try {
    principal = await principalOf(this, request, now);
  } catch (error) {
    if (error instanceof ApiError && error.statusCode === 401) throw await limiter.fail(request.ip, now, error);
    throw error;
  }
  const userAgent = request.headers['user-agent'];
  request.caller = callerOf(principal, now, {
    ip: request.ip ?? null,
    userAgent: typeof userAgent === 'string' ? userAgent.slice(0, 512) : null,
  });
}

/** X-API-KEY when sent (key, workspace/key or a session), else `Authorization: Bearer`. Every refusal is a 401. */
async function principalOf(app: FastifyInstance, request: FastifyRequest, now: number): Promise<ApiPrincipal> {
  const header = request.headers['x-api-key'];
  if (typeof header === 'string' && header.length > 0) return principalOfApiKeyHeader(app, header.trim(), now);
  const authorization = request.headers.authorization;
  if (typeof authorization === 'string' && authorization.length > 0) {
    const token = BEARER.exec(authorization)?.[1];
    if (!token)
      throw errors.unauthorized(
        'Unsupported Authorization header: send Authorization: Bearer <token from POST /v1/token>, or your API key in X-API-KEY.',
      );
    return principalOfBearer(app, token, now);
  }
  throw errors.unauthorized('Missing credentials: send your API key in the X-API-KEY header.');
}

async function principalOfApiKeyHeader(app: FastifyInstance, header: string, now: number): Promise<ApiPrincipal> {
  const parts = header.split('/');
  if (parts.length > 3) throw errors.unauthorized();
  const [namedWorkspace, key] = parts.length === 1 ? [undefined, parts[0]] : parts;
  if (namedWorkspace !== undefined && !isUuid(namedWorkspace)) throw errors.unauthorized();
  if (namedWorkspace !== undefined && parts.length === 3) {
    // A session acts as its end user: the user's own burst bucket, exempt from the daily quota (contract §6).
    const session = await verifySession(app.ctx.db, { workspaceId: namedWorkspace, apiKey: key, tokenId: parts[2] }, now);
    if (!session) throw errors.unauthorized();
    return session;
  }
  const row = await verifyApiKey(app.ctx.db, key);
  if (!row || (namedWorkspace !== undefined && namedWorkspace.toLowerCase() !== row.workspace_id)) throw errors.unauthorized();
  const common = { workspaceId: row.workspace_id, apiKeyId: row.id, dailyQuota: row.daily_quota };
  return row.kind === 'app' ? { ...common, kind: 'appKey', appId: row.app_id } : { ...common, kind: 'workspaceKey' };
}

/** A bearer token has its key's rights, bucket and quota (contract §1, §6); it is always an app's. */
async function principalOfBearer(app: FastifyInstance, token: string, now: number): Promise<ApiPrincipal> {
  const row = await verifyBearerToken(app.ctx.db, token, now);
  if (!row) throw errors.unauthorized();
  return { kind: 'bearer', workspaceId: row.workspace_id, apiKeyId: row.api_key_id, appId: row.app_id, dailyQuota: row.daily_quota };
}

/** Adds the auth hook to every route of the scope it is registered in (the /v1 routes). */
export default fp(
  async function auth(app: FastifyInstance) {
    app.decorateRequest('caller', null as unknown as Caller<ApiPrincipal>);
    app.addHook('onRequest', authenticate);
  },
  { name: 'auth' },
);
