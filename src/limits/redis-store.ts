import { Redis } from 'ioredis';
import type { Admission, AdmitRequest, BucketResult, LimitStore, QuotaResult } from './limit-store.js';

/** Redis could not be reached (or did not answer in time); the limits plugin answers 503 `unavailable`. */
export class LimitStoreUnavailableError extends Error {
  constructor(cause: unknown) {
    super(`Limit state (Redis) is unavailable: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'LimitStoreUnavailableError';
  }
}

const CONNECT_TIMEOUT_MS = 1000;
/** A limit operation takes microseconds; one slower than this means Redis is stalled, not busy (withinTime). */
const COMMAND_TIMEOUT_MS = 500;
const RECONNECT_MAX_DELAY_MS = 1000;
/** Kept beyond the full-refill time: after it an absent key (a full bucket) is the same bucket. */
const BUCKET_TTL_MARGIN_MS = 10_000;
/** A day's count outlives its UTC day, whatever the time zone of Redis's clock. */
const QUOTA_TTL_SECONDS = 48 * 3600;

// The time comes in as ARGV (the app's clock, injectable in tests), never Redis TIME. Tokens go back
// as a string: Redis turns a Lua number reply into a truncated integer. Mirrors MemoryLimitStore.bucket.
// Refills KEYS[1]'s bucket to `now` (ARGV 1-3: capacity, rate, now) into locals `tokens` and `at`.
const REFILL_LUA = `
local capacity = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local now = tonumber(ARGV[3])
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(state[1])
local at = tonumber(state[2])
if tokens == nil or at == nil then tokens = capacity; at = now end
if now > at then
  tokens = math.min(capacity, tokens + (now - at) / 1000 * rate)
  at = now
end
`;

// Stores `tokens` and `at` back, expiring after a full refill plus ARGV[4] ms.
const SAVE_LUA = `
redis.call('HSET', KEYS[1], 'tokens', string.format('%.17g', tokens), 'at', string.format('%.17g', at))
redis.call('PEXPIRE', KEYS[1], math.ceil(capacity / rate * 1000) + tonumber(ARGV[4]))
`;

// ARGV: capacity, rate, now, ttl margin, take (1/0).
const BUCKET_LUA = `${REFILL_LUA}
local allowed = tokens >= 1
if allowed and ARGV[5] == '1' then tokens = tokens - 1 end
${SAVE_LUA}
return { allowed and 1 or 0, string.format('%.17g', tokens) }
`;

// ARGV: capacity, rate, now, ttl margin.
const REFUND_LUA = `${REFILL_LUA}
tokens = math.min(capacity, tokens + 1)
${SAVE_LUA}
return string.format('%.17g', tokens)
`;

const RESERVE_LUA = `
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
if used >= tonumber(ARGV[1]) then return { 0, used } end
used = redis.call('INCR', KEYS[1])
redis.call('EXPIRE', KEYS[1], ARGV[2])
return { 1, used }
`;

// Never below 0, and never creates the key.
const RELEASE_LUA = `
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
if used <= 0 then return 0 end
return redis.call('DECR', KEYS[1])
`;

// The admission of one request in one round trip: BUCKET_LUA, then RESERVE_LUA when a token was
// there and ARGV[5] asks to reserve (else the count is only read). KEYS: bucket, quota.
const ADMIT_LUA = `${REFILL_LUA}
local allowed = tokens >= 1
if allowed then tokens = tokens - 1 end
${SAVE_LUA}
local used = tonumber(redis.call('GET', KEYS[2]) or '0')
local reserved = 0
if allowed and ARGV[5] == '1' and used < tonumber(ARGV[6]) then
  used = redis.call('INCR', KEYS[2])
  redis.call('EXPIRE', KEYS[2], ARGV[7])
  reserved = 1
end
return { allowed and 1 or 0, string.format('%.17g', tokens), reserved, used }
`;
interface Scripts {
  limitAdmit(
    bucketKey: string,
    quotaKey: string,
    capacity: number,
    refillPerSecond: number,
    nowMs: number,
    marginMs: number,
    reserve: 0 | 1,
    limit: number,
    ttlSeconds: number,
  ): Promise<[number, string, number, number]>;
  limitBucket(
    key: string,
    capacity: number,
    refillPerSecond: number,
    nowMs: number,
    marginMs: number,
    take: 0 | 1,
  ): Promise<[number, string]>;
  limitRefund(key: string, capacity: number, refillPerSecond: number, nowMs: number, marginMs: number): Promise<string>;
  limitReserve(key: string, limit: number, ttlSeconds: number): Promise<[number, number]>;
  limitRelease(key: string): Promise<number>;
}

/**
 * Limit state shared by every server process through Redis; each operation is one atomic Lua script.
 * Fails fast: while Redis is unreachable every method rejects at once with LimitStoreUnavailableError
 * (no offline queue, no retried commands), and the client reconnects in the background.
 */
export class RedisLimitStore implements LimitStore {
  private readonly redis: Redis & Scripts;
  /** Pending until the first connection attempt ends (either way), so the first requests don't race it. */
  private starting: Promise<void> | null;

  constructor(
    url: string,
    private readonly keyPrefix: string,
  ) {
    this.redis = new Redis(url, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      connectTimeout: CONNECT_TIMEOUT_MS,
      retryStrategy: (times) => Math.min(times * 100, RECONNECT_MAX_DELAY_MS),
      // Commands issued in one event-loop turn (many concurrent requests) go out in one write.
      enableAutoPipelining: true,
    }) as Redis & Scripts;
    // Failures reach callers as rejections; without a listener ioredis would print each one.
    this.redis.on('error', () => {});
    this.redis.defineCommand('limitAdmit', { numberOfKeys: 2, lua: ADMIT_LUA });
    this.redis.defineCommand('limitBucket', { numberOfKeys: 1, lua: BUCKET_LUA });
    this.redis.defineCommand('limitRefund', { numberOfKeys: 1, lua: REFUND_LUA });
    this.redis.defineCommand('limitReserve', { numberOfKeys: 1, lua: RESERVE_LUA });
    this.redis.defineCommand('limitRelease', { numberOfKeys: 1, lua: RELEASE_LUA });
    this.starting = new Promise<void>((resolve) => {
      const done = () => {
        this.redis.off('ready', done).off('error', done).off('end', done);
        this.starting = null;
        resolve();
      };
      this.redis.once('ready', done).once('error', done).once('end', done);
    });
  }

  /** Resolves once connected; rejects with LimitStoreUnavailableError when the first attempt failed. */
  async ready(): Promise<void> {
    await this.call(async () => {
      if (this.redis.status !== 'ready') throw new Error(`connection ${this.redis.status}`);
    });
  }

  async admit(r: AdmitRequest): Promise<Admission> {
    const [allowed, tokens, reserved, used] = await this.call(() =>
      this.redis.limitAdmit(
        `${this.keyPrefix}bucket:${r.bucketKey}`,
        this.quotaKey(r.workspaceId, r.day),
        r.capacity,
        r.refillPerSecond,
        r.nowMs,
        BUCKET_TTL_MARGIN_MS,
        r.reserve ? 1 : 0,
        r.limit,
        QUOTA_TTL_SECONDS,
      ),
    );
    return { bucket: { allowed: allowed === 1, tokens: Number(tokens) }, quota: { allowed: reserved === 1, used } };
  }

  async bucket(key: string, capacity: number, refillPerSecond: number, nowMs: number, take: boolean): Promise<BucketResult> {
    const [allowed, tokens] = await this.call(() =>
      this.redis.limitBucket(`${this.keyPrefix}bucket:${key}`, capacity, refillPerSecond, nowMs, BUCKET_TTL_MARGIN_MS, take ? 1 : 0),
    );
    return { allowed: allowed === 1, tokens: Number(tokens) };
  }

  async refund(key: string, capacity: number, refillPerSecond: number, nowMs: number): Promise<BucketResult> {
    const tokens = await this.call(() =>
      this.redis.limitRefund(`${this.keyPrefix}bucket:${key}`, capacity, refillPerSecond, nowMs, BUCKET_TTL_MARGIN_MS),
    );
    return { allowed: true, tokens: Number(tokens) };
  }

  async reserveQuota(workspaceId: string, day: string, limit: number): Promise<QuotaResult> {
    const [allowed, used] = await this.call(() => this.redis.limitReserve(this.quotaKey(workspaceId, day), limit, QUOTA_TTL_SECONDS));
    return { allowed: allowed === 1, used };
  }

  releaseQuota(workspaceId: string, day: string): Promise<number> {
    return this.call(() => this.redis.limitRelease(this.quotaKey(workspaceId, day)));
  }

  async quotaUsed(workspaceId: string, day: string): Promise<number> {
    return Number((await this.call(() => this.redis.get(this.quotaKey(workspaceId, day)))) ?? 0);
  }

  async quotaUsedMany(workspaceIds: readonly string[], day: string): Promise<number[]> {
    if (workspaceIds.length === 0) return [];
    const counts = await this.call(() => this.redis.mget(workspaceIds.map((id) => this.quotaKey(id, day))));
    return counts.map((count) => Number(count ?? 0));
  }

  /** Adds units to a day's count (those counted in process while Redis was unreachable). */
  async addQuota(workspaceId: string, day: string, units: number): Promise<void> {
    const key = this.quotaKey(workspaceId, day);
    await this.call(() => this.redis.multi().incrby(key, units).expire(key, QUOTA_TTL_SECONDS).exec());
  }

  async ping(): Promise<void> {
    await this.call(() => this.redis.ping());
  }

  async close(): Promise<void> {
    if (this.redis.status === 'end') return;
    if (this.redis.status !== 'ready') return this.redis.disconnect();
    await this.redis.quit().catch(() => this.redis.disconnect());
  }

  private quotaKey(workspaceId: string, day: string) {
    return `${this.keyPrefix}quota:${workspaceId}:${day}`;
  }

  /** Runs a command once the first connection attempt is over; every failure is "unavailable". */
  private async call<T>(command: () => Promise<T>): Promise<T> {
    try {
      if (this.starting) await this.starting;
      return await withinTime(command());
    } catch (error) {
      throw new LimitStoreUnavailableError(error);
    }
  }
}

/**
 * The answer, or a rejection once COMMAND_TIMEOUT_MS have passed without it. The timer's end waits for the event
 * loop's next I/O turn before it counts: a process so busy that its own loop lagged past the timeout reads a reply
 * that is already there first, and does not take its own lag for a stalled Redis (ioredis's commandTimeout did, and
 * each process then counted quotas on its own).
 */
function withinTime<T>(answer: Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => setImmediate(() => reject(new Error(`no answer in ${COMMAND_TIMEOUT_MS} ms`))), COMMAND_TIMEOUT_MS);
    answer.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
