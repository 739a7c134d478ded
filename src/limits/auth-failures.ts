import { type ApiError, errors } from '../lib/errors.js';
import type { LimitStore } from './limit-store.js';

/**
 * Failed authentications are limited per client IP (a bucket of `authFailuresPerMinute`, shared
 * through the limit store), so keys cannot be guessed at speed. Only failures touch the store; each
 * process remembers which IPs are out of tries and refuses them before verifying anything. One per
 * app (AppContext.authFailures), shared by the API and the admin surface.
 */
export class AuthFailureLimiter {
  private readonly blockedUntil = new Map<string, number>();
  constructor(
    private readonly store: LimitStore,
    private readonly perMinute: number,
  ) {}

  /** Throws 429 while this IP has no tries left. */
  check(ip: string, now: number) {
    const until = this.blockedUntil.get(ip);
    if (until === undefined) return;
    if (until > now) throw errors.rateLimited(Math.max(1, Math.ceil((until - now) / 1000)));
    this.blockedUntil.delete(ip);
  }

  /** Counts a failure; the error to answer with (429 once the IP is out of tries, else 401). */
  async fail(ip: string, now: number, error: ApiError): Promise<ApiError> {
    const perMinute = this.perMinute;
    const perSecond = perMinute / 60;
    let result: Awaited<ReturnType<LimitStore['bucket']>>;
    try {
      result = await this.store.bucket(`authfail:${ip}`, perMinute, perSecond, now, true);
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
