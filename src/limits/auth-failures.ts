import { type ApiError, errors } from '../lib/errors.js';
import type { LimitStore } from './limit-store.js';

/**
 * Failed authentications are limited per client IP (a bucket of `authFailuresPerMinute`, shared
 * through the limit store). Only failures touch the store; each process remembers which IPs are out of
 * tries. The API verifies every credential and calls `fail` only for those that do not verify, so a
 * stranger's failures never refuse a customer's valid key from the same IP, while a guesser at that IP
 * gets 429 for every wrong key (no signal). The admin surface (token, console cookie, sign-in, /metrics)
 * does the same. One per app (AppContext.authFailures).
 */
export class AuthFailureLimiter {
  private readonly blockedUntil = new Map<string, number>();
  constructor(
    private readonly store: LimitStore,
    private readonly perMinute: number,
  ) {}

  /** The 429 to answer while this IP has no tries left, else undefined. */
  private refusal(ip: string, now: number): ApiError | undefined {
    const until = this.blockedUntil.get(ip);
    if (until === undefined) return undefined;
    if (until > now) return errors.rateLimited(Math.max(1, Math.ceil((until - now) / 1000)));
    this.blockedUntil.delete(ip);
    return undefined;
  }

  /** Counts a failure; the error to answer with (429 while the IP is out of tries, else `error`). */
  async fail(ip: string, now: number, error: ApiError): Promise<ApiError> {
    const refusal = this.refusal(ip, now);
    if (refusal) return refusal; // already out of tries: no store round trip
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
