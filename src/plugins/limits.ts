import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import fp from 'fastify-plugin';
import { type ApiPrincipal, apiPrincipalOf, isQuotaExempt, rateLimitKeyOf } from '../lib/caller.js';
import { errors } from '../lib/errors.js';
import type { Admission, AdmitRequest } from '../limits/limit-store.js';

const DAY_MS = 86_400_000;

/** UTC day (YYYY-MM-DD) of a time: the quota window. The last day is kept: it runs on every request. */
let cachedDay = { start: 0, end: 0, text: '' };
function utcDay(ms: number): string {
  if (ms < cachedDay.start || ms >= cachedDay.end) {
    const start = Math.floor(ms / DAY_MS) * DAY_MS;
    cachedDay = { start, end: start + DAY_MS, text: new Date(start).toISOString().slice(0, 10) };
  }
  return cachedDay.text;
}
/** Unix seconds of the next UTC midnight after a time: X-Service-Quota-Reset. */
const nextUtcMidnight = (ms: number) => (Math.floor(ms / DAY_MS) + 1) * (DAY_MS / 1000);

/** Whole seconds until a bucket holding `tokens` has one again (at least 1): Retry-After. */
const secondsUntilToken = (tokens: number, refillPerSecond: number) => Math.max(1, Math.ceil((1 - tokens) / refillPerSecond));

declare module 'fastify' {
  interface FastifyRequest {
    /** The daily-quota unit this request reserved, given back in onSend unless the response is 2xx. */
    quotaReservation: { day: string } | null;
  }
}

const QUOTA_EXCEEDED = '{"error":"quota limit reached"}';

/**
 * The bucket keys of a principal, made once per principal object: a credential answered from the
 * cache is the same object request after request, and a key string made once keeps its hash.
 */
const bucketKeys = new WeakMap<ApiPrincipal, { read: string; write: string }>();
function bucketKeysOf(principal: ApiPrincipal) {
  let keys = bucketKeys.get(principal);
  if (!keys) {
    const identity = rateLimitKeyOf(principal);
    keys = { read: `r:${identity}`, write: `w:${identity}` };
    bucketKeys.set(principal, keys);
  }
  return keys;
}

/**
 * Contract §6, after authentication, on every /v1 route: the burst bucket of the principal and method
 * class, then the workspace's daily quota (a unit reserved before the operation, given back when the
 * response is not 2xx, so concurrent requests never count past the limit). Headers on every response.
 */
export default fp(
  async function limits(app: FastifyInstance) {
    const { config, limitStore: store } = app.ctx;
    const { read, write } = config.limits;
    app.decorateRequest('quotaReservation', null);

    /** Headers, then the refusal (a 429) or the go-ahead, for an admission. */
    function apply(request: FastifyRequest, reply: FastifyReply, r: AdmitRequest, admission: Admission, done: HookHandlerDoneFunction) {
      const { bucket: taken, quota } = admission;
      reply.headers({
        'x-ratelimit-limit': r.capacity,
        'x-ratelimit-remaining': Math.floor(taken.tokens),
        'x-service-quota-limit': r.limit,
        'x-service-quota-remaining': Math.max(0, r.limit - quota.used),
        'x-service-quota-reset': nextUtcMidnight(request.caller.actor.at),
      });
      if (!taken.allowed) return done(errors.rateLimited(secondsUntilToken(taken.tokens, r.refillPerSecond)));
      if (!r.reserve) return done();
      if (!quota.allowed) {
        reply.header('x-service-quota-remaining', 0);
        reply.code(429).type('application/json; charset=utf-8').send(QUOTA_EXCEEDED); // answered here: done is not called
        return;
      }
      request.quotaReservation = { day: r.day };
      done();
    }

    // Callback style: the in-process store decides synchronously (no promise); Redis answers later.
    app.addHook('onRequest', function applyLimits(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) {
      const { actor } = request.caller;
      const principal = apiPrincipalOf(request.caller);
      const isRead = request.method === 'GET' || request.method === 'HEAD';
      const bucket = isRead ? read : write;
      const r: AdmitRequest = {
        bucketKey: isRead ? bucketKeysOf(principal).read : bucketKeysOf(principal).write,
        capacity: bucket.capacity,
        refillPerSecond: bucket.refillPerSecond,
        // The request's time, read once by the auth hook: the server's for the bucket, the workspace's (a sandbox's
        // test clock may be ahead) for the quota's day.
        nowMs: actor.at - principal.clockOffsetMs,
        workspaceId: principal.workspaceId,
        day: utcDay(actor.at),
        limit: principal.dailyQuota,
        reserve: !isQuotaExempt(principal),
      };
      const admission = store.admitNow?.(r);
      if (admission) return apply(request, reply, r, admission, done);
      store.admit(r).then(
        (later) => apply(request, reply, r, later, done),
        // Never let a request through unlimited.
        () => done(errors.unavailable('Limit state is unavailable; retry shortly.')),
      );
    });

    // Callback style: most responses are 2xx and leave at once, without a promise.
    app.addHook('onSend', function returnUnusedQuota(request, reply, payload, done) {
      const reservation = request.quotaReservation;
      if (!reservation || (reply.statusCode >= 200 && reply.statusCode < 300)) return done(null, payload);
      request.quotaReservation = null;
      store.releaseQuota(request.caller.principal.workspaceId, reservation.day).then(
        (used) => {
          reply.header('x-service-quota-remaining', Math.max(0, apiPrincipalOf(request.caller).dailyQuota - used));
          done(null, payload);
        },
        (error) => {
          // The unit stays counted: erring on the side of the limit.
          request.log.error({ err: error }, 'could not give back a quota unit');
          done(null, payload);
        },
      );
    });
  },
  { name: 'limits', dependencies: ['auth'] },
);
