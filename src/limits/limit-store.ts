/**
 * Where limit state lives. Two implementations behind this one interface: in-process (one server
 * process; the day's quota counts persisted in the database) and Redis (shared by every process;
 * atomic Lua scripts). Every method takes the time, so tests move a clock instead of sleeping.
 */
/** A store leaving the shared state (with why) or regaining it (with the units it added to the shared counts). */
export type LimitStateEvent = { shared: false; error: unknown } | { shared: true; handedBack: number };

export interface BucketResult {
  /** Whether a token was there (and, when taking, was taken). */
  allowed: boolean;
  /** Tokens left after this call (fractional: refill is continuous). */
  tokens: number;
}

export interface QuotaResult {
  /** Whether a unit was reserved (false: the day's limit is reached). */
  allowed: boolean;
  /** Units counted in the day after this call. */
  used: number;
}

/** One request's admission: its burst token, then its quota unit. */
export interface Admission {
  bucket: BucketResult;
  /** `allowed`: a unit was reserved (only asked when a token was there and the request counts). */
  quota: QuotaResult;
}

export interface AdmitRequest {
  bucketKey: string;
  capacity: number;
  refillPerSecond: number;
  nowMs: number;
  workspaceId: string;
  day: string;
  limit: number;
  /** false for requests exempt from the quota (sessions): the count is only read. */
  reserve: boolean;
}

export interface LimitStore {
  /**
   * Takes a burst token and, when one was there and `reserve`, reserves a quota unit: the whole
   * admission of a request in one step (one round trip to Redis). `quota.used` is the day's count after.
   */
  admit(request: AdmitRequest): Promise<Admission>;
  /**
   * The same admission without a promise when the store can decide at once (the in-process store,
   * once the workspace's count is loaded); undefined when it cannot: call `admit`.
   */
  admitNow?(request: AdmitRequest): Admission | undefined;
  /**
   * A token bucket: refills continuously at `refillPerSecond` up to `capacity` (full when new);
   * takes one token when `take` and one is there. `take: false` only looks.
   */
  bucket(key: string, capacity: number, refillPerSecond: number, nowMs: number, take: boolean): Promise<BucketResult>;
  /**
   * Gives back one token taken from a bucket (a sign-in guess that proved right), refilled to `nowMs` first and
   * never above `capacity`: one atomic step, as `bucket` is. `allowed` is always true.
   */
  refund(key: string, capacity: number, refillPerSecond: number, nowMs: number): Promise<BucketResult>;
  /** Reserves one unit of a workspace's count for a UTC day unless `limit` is reached. */
  reserveQuota(workspaceId: string, day: string, limit: number): Promise<QuotaResult>;
  /** Gives back a unit reserved by a request that did not end 2xx; returns the day's count after. */
  releaseQuota(workspaceId: string, day: string): Promise<number>;
  /** The day's count without changing it. */
  quotaUsed(workspaceId: string, day: string): Promise<number>;
  /** The day's counts of many workspaces, in their order, in one read (operators' lists, metrics). */
  quotaUsedMany(workspaceIds: readonly string[], day: string): Promise<number[]>;
  /** Throws when the state cannot be reached (a failover's probe of Redis; readiness is the database's alone). */
  ping(): Promise<void>;
  /** A store that stands in for a shared one: whether the shared state is in use now (a metric). */
  readonly shared?: boolean;
  /** A store that stands in for a shared one: called when it leaves or regains the shared state (logged). */
  watch?(listener: (event: LimitStateEvent) => void): void;
  close(): Promise<void>;
}

/** Tokens after refilling from `at` to `now`, capped. */
export function refill(tokens: number, at: number, now: number, capacity: number, refillPerSecond: number): number {
  return now > at ? Math.min(capacity, tokens + ((now - at) / 1000) * refillPerSecond) : tokens;
}
