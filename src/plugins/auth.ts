import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import fp from 'fastify-plugin';
import { type ApiPrincipal, type Caller, callerOf } from '../lib/caller.js';
import { credentialCacheOf } from '../lib/credential-cache.js';
import { ApiError, errors } from '../lib/errors.js';
import { isUuid } from '../lib/formats.js';
import { cookieOf } from '../lib/cookies.js';
import { SIGN_IN_COOKIE } from '../lib/sign-in-sessions.js';
import { verifyApiKey, verifyBearerToken, verifySession } from '../modules/resources/credentials/index.js';
import { signedInPrincipal } from '../modules/surfaces/sign-in/index.js';
import { assertSameSite, portalWorkspaceOf } from './portal-session.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Who is calling (principal, access, actor); set once by the auth hook on every /v1 route. */
    caller: Caller;
    /**
     * The secret part of the credential that authenticated the request (never stored, never logged): what
     * the idempotency plugin seals this caller's stored answers with, so only this credential reads them back.
     */
    credentialSecret: string;
  }
}

const BEARER = /^Bearer +(\S+) *$/i;

/**
 * Where the credential cache finds a presented credential: everything but the secret tail of the key
 * or token (the first 20 characters, `ppk_` or `ppt_` and a non-secret lookup, are kept in the id).
 */
const HEAD = 20;

/** A credential as presented, before it is verified. */
interface Presented {
  /** The cache's id for it: the header without the secret part. */
  readonly id: string;
  /** The secret part (compared in constant time with a cached one). */
  readonly secret: string;
  readonly header: 'x-api-key' | 'bearer';
  /** The credential as sent (the X-API-KEY value, or the bearer token). */
  readonly value: string;
}

/** The credential of a request (contract §2): X-API-KEY when sent, else `Authorization: Bearer`; 401 when neither. */
function presentedCredential(request: FastifyRequest): Presented {
  const header = request.headers['x-api-key'];
  if (typeof header === 'string' && header.length > 0) {
    const value = header.trim();
    const key = value.slice(value.indexOf('/') + 1); // the key, and a session's tokenId after it
    const secretStart = value.length - key.length + HEAD;
    const secretEnd = key.indexOf('/') === -1 ? value.length : value.length - key.length + key.indexOf('/');
    return {
      id: `k:${value.slice(0, secretStart)}${value.slice(secretEnd)}`,
      secret: value.slice(secretStart, secretEnd),
      header: 'x-api-key',
      value,
    };
  }
  const authorization = request.headers.authorization;
  if (typeof authorization === 'string' && authorization.length > 0) {
    const token = BEARER.exec(authorization)?.[1];
    if (!token)
      throw errors.unauthorized(
        'Unsupported Authorization header: send Authorization: Bearer <token from POST /v1/token>, or your API key in X-API-KEY.',
      );
    return { id: `b:${token.slice(0, HEAD)}`, secret: token.slice(HEAD), header: 'bearer', value: token };
  }
  throw errors.unauthorized('Missing credentials: send your API key in the X-API-KEY header.');
}

interface Verified {
  principal: ApiPrincipal;
  /** ms; Infinity for keys */
  expiresAt: number;
}

/** Verifies a presented credential against the database: its principal and expiry, or undefined. */
async function verify(app: FastifyInstance, presented: Presented, now: number): Promise<Verified | undefined> {
  const db = app.ctx.db;
  if (presented.header === 'bearer') {
    const row = await verifyBearerToken(db, presented.value, now);
    if (!row) return undefined;
    const { workspace_id: workspaceId, api_key_id: apiKeyId, app_id: appId, daily_quota: dailyQuota, id: bearerTokenId } = row;
    const clockOffsetMs = Number(row.clock_offset_ms);
    // Same rights as its key: an app key's token (POST /v1/token), or the operator's workspace-key token (admin surface).
    const principal: ApiPrincipal =
      row.kind === 'app'
        ? { kind: 'bearer', workspaceId, apiKeyId, appId, dailyQuota, clockOffsetMs, bearerTokenId }
        : { kind: 'workspaceKey', workspaceId, apiKeyId, dailyQuota, clockOffsetMs, bearerTokenId };
    return { principal, expiresAt: Date.parse(row.expires_at) };
  }
  // X-API-KEY: <key>, <workspaceId>/<key> or, for a session, <workspaceId>/<key>/<tokenId>.
  const parts = presented.value.split('/');
  if (parts.length > 3) return undefined;
  const [namedWorkspace, key] = parts.length === 1 ? [undefined, parts[0]] : parts;
  if (namedWorkspace !== undefined && !isUuid(namedWorkspace)) return undefined;
  if (namedWorkspace !== undefined && parts.length === 3) {
    // A session acts as its end user: the user's own burst bucket, exempt from the daily quota (contract §6).
    return verifySession(db, { workspaceId: namedWorkspace, apiKey: key, tokenId: parts[2] }, now);
  }
  const row = await verifyApiKey(db, key);
  if (!row || (namedWorkspace !== undefined && namedWorkspace.toLowerCase() !== row.workspace_id)) return undefined;
  const common = {
    workspaceId: row.workspace_id,
    apiKeyId: row.id,
    dailyQuota: row.daily_quota,
    clockOffsetMs: Number(row.clock_offset_ms),
  };
  const principal: ApiPrincipal =
    row.kind === 'app' ? { ...common, kind: 'appKey', appId: row.app_id } : { ...common, kind: 'workspaceKey' };
  return { principal, expiresAt: Number.POSITIVE_INFINITY };
}

/** Adds the auth hook to every route of the scope it is registered in (the /v1 routes). */
export default fp(
  async function auth(app: FastifyInstance) {
    const { clock, authFailures, config, database } = app.ctx;
    const credentials = credentialCacheOf(database, config.authCacheTtlMs);
    app.decorateRequest('caller', null as unknown as Caller);
    app.decorateRequest('credentialSecret', '');

    function authenticated(request: FastifyRequest, secret: string, principal: ApiPrincipal, now: number) {
      request.credentialSecret = secret;
      const userAgent = request.headers['user-agent'];
      // The request's time is the workspace's: a sandbox's test clock may be ahead of the server's.
      request.caller = callerOf(principal, now + principal.clockOffsetMs, {
        ip: request.ip ?? null,
        userAgent: typeof userAgent === 'string' ? userAgent.slice(0, 512) : null,
      });
    }

    async function verifyAndRemember(request: FastifyRequest, presented: Presented, now: number): Promise<void> {
      let verified: Verified | undefined;
      try {
        verified = await verify(app, presented, now);
      } catch (error) {
        if (error instanceof ApiError && error.statusCode === 401) throw await authFailures.fail(request.ip, now, error);
        throw error;
      }
      if (!verified) throw await authFailures.fail(request.ip, now, errors.unauthorized());
      credentials.remember(presented.id, presented.secret, verified.principal, verified.expiresAt);
      authenticated(request, presented.secret, verified.principal, now);
    }

    /**
     * A person's cookie, under its workspace's portal (/portal/{workspaceId}/v1/…): only the cookie counts there (a
     * key or token header is ignored), a change keeps the cross-site rule, and the session is read on every request
     * (one query; it is also what keeps it from going idle). Keys and tokens never take this way.
     */
    async function authenticatePerson(request: FastifyRequest, workspaceId: string, now: number): Promise<void> {
      assertSameSite(request, config.portalUrl);
      const token = cookieOf(request.headers.cookie, SIGN_IN_COOKIE);
      const principal = token ? await signedInPrincipal(database, workspaceId, token, now) : undefined;
      if (!principal || token === undefined)
        throw await authFailures.fail(request.ip, now, errors.unauthorized('Not signed in, or the session has ended: sign in again.'));
      authenticated(request, token, principal, now);
    }

    // Callback style: a credential verified within the last second is answered from the cache,
    // synchronously (no query, no hash, no promise); only the others wait on the database.
    // A credential is verified even from an IP that is out of tries: one that verifies is always
    // served (behind a proxy, strangers share the customer's IP); only failures answer 429 there.
    app.addHook('onRequest', function authenticate(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) {
      const now = clock.now();
      const portalWorkspace = portalWorkspaceOf(request);
      if (portalWorkspace !== undefined) {
        authenticatePerson(request, portalWorkspace, now).then(() => done(), done);
        return;
      }
      let presented: Presented;
      try {
        presented = presentedCredential(request);
      } catch (error) {
        if (error instanceof ApiError && error.statusCode === 401) {
          authFailures.fail(request.ip, now, error).then(done, done);
          return;
        }
        return done(error as Error);
      }
      const principal = credentials.find(presented.id, presented.secret, now);
      if (principal) {
        authenticated(request, presented.secret, principal, now);
        return done();
      }
      verifyAndRemember(request, presented, now).then(() => done(), done);
    });
  },
  { name: 'auth' },
);
