import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { BucketConfig } from '../config.js';
import { isQuotaExempt, rateLimitKeyOf } from '../lib/caller.js';
import { errors } from '../lib/errors.js';
import type { Admission } from '../limits/limit-store.js';

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
 * Contract §6, after authentication, on every /v1 route: the burst bucket of the principal and method
 * class, then the workspace's daily quota (a unit reserved before the operation, given back when the
 * response is not 2xx, so concurrent requests never count past the limit). Headers on every response.
 */
export default fp(
  async function limits(app: FastifyInstance) {
    const { clock, config, limitStore: store } = app.ctx;
    const { read, write } = config.limits;
    app.decorateRequest('quotaReservation', null);

    app.addHook('onRequest', async function applyLimits(request: FastifyRequest, reply: FastifyReply) {
      const p = request.caller.principal;
      const quotaExempt = isQuotaExempt(p);
      const now = clock.now();
      const isRead = request.method === 'GET' || request.method === 'HEAD';
      const bucket: BucketConfig = isRead ? read : write;
      const day = utcDay(now);
      let admission: Admission;
      try {
        admission = await store.admit({
          bucketKey: `${isRead ? 'r' : 'w'}:${rateLimitKeyOf(p)}`,
          capacity: bucket.capacity,
          refillPerSecond: bucket.refillPerSecond,
          nowMs: now,
          workspaceId: p.workspaceId,
          day,
          limit: p.dailyQuota,
          reserve: !quotaExempt,
        });
      } catch {
        throw errors.unavailable('Limit state is unavailable; retry shortly.'); // never let a request through unlimited
      }
      const { bucket: taken, quota } = admission;
      reply.headers({
        'x-ratelimit-limit': bucket.capacity,
        'x-ratelimit-remaining': Math.floor(taken.tokens),
        'x-service-quota-limit': p.dailyQuota,
        'x-service-quota-remaining': Math.max(0, p.dailyQuota - quota.used),
        'x-service-quota-reset': nextUtcMidnight(now),
      });
      if (!taken.allowed) throw errors.rateLimited(secondsUntilToken(taken.tokens, bucket.refillPerSecond));
      if (quotaExempt) return;
      if (!quota.allowed) {
        reply.header('x-service-quota-remaining', 0);
        return reply.code(429).type('application/json; charset=utf-8').send(QUOTA_EXCEEDED);
      }
      request.quotaReservation = { day };
    });

    // Callback style: most responses are 2xx and leave at once, without a promise.
    app.addHook('onSend', function returnUnusedQuota(request, reply, payload, done) {
      const reservation = request.quotaReservation;
      if (!reservation || (reply.statusCode >= 200 && reply.statusCode < 300)) return done(null, payload);
      request.quotaReservation = null;
      store.releaseQuota(request.caller.principal.workspaceId, reservation.day).then(
        (used) => {
          reply.header('x-service-quota-remaining', Math.max(0, request.caller.principal.dailyQuota - used));
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
