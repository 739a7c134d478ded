import type { Admission, AdmitRequest, BucketResult, LimitStateEvent, LimitStore, QuotaResult } from './limit-store.js';
import { MemoryLimitStore } from './memory-store.js';
import { LimitStoreUnavailableError, type RedisLimitStore } from './redis-store.js';

/** How often Redis is tried again while it is unreachable. */
const PROBE_MS = 1000;

/**
 * Redis's limit state, with this process's own in its place while Redis is unreachable: requests keep being
 * served (a replica set is not taken down by its cache), each process limiting on its own meanwhile — its
 * buckets full, each workspace's count from the last one Redis gave this process (so a workspace near its
 * quota stays near it; during an outage each process may let up to the rest through). Redis is tried again
 * every second; when it answers, the units counted meanwhile are added to its counts, and shared counting
 * resumes. `shared` says which state is in use (the `portal_limit_state_shared` metric, readiness never).
 */
export class FailoverLimitStore implements LimitStore {
  private local: MemoryLimitStore | null = null;
  /** The last count Redis gave for each workspace (one entry per workspace: today's). */
  private readonly seen = new Map<string, { day: string; used: number }>();
  private probe: NodeJS.Timeout | null = null;
  private onChange: (event: LimitStateEvent) => void = () => {};

  constructor(private readonly redis: RedisLimitStore) {}

  watch(listener: (event: LimitStateEvent) => void): void {
    this.onChange = listener;
  }

  get shared(): boolean {
    return this.local === null;
  }

  admit(r: AdmitRequest): Promise<Admission> {
    return this.either(
      async (redis) => this.note(r.workspaceId, r.day, await redis.admit(r)),
      (local) => local.admit(r),
    );
  }

  bucket(key: string, capacity: number, refillPerSecond: number, nowMs: number, take: boolean): Promise<BucketResult> {
    return this.either(
      (redis) => redis.bucket(key, capacity, refillPerSecond, nowMs, take),
      (local) => local.bucket(key, capacity, refillPerSecond, nowMs, take),
    );
  }

  refund(key: string, capacity: number, refillPerSecond: number, nowMs: number): Promise<BucketResult> {
    return this.either(
      (redis) => redis.refund(key, capacity, refillPerSecond, nowMs),
      (local) => local.refund(key, capacity, refillPerSecond, nowMs),
    );
  }

  reserveQuota(workspaceId: string, day: string, limit: number): Promise<QuotaResult> {
    return this.either(
      (redis) => redis.reserveQuota(workspaceId, day, limit),
      (local) => local.reserveQuota(workspaceId, day, limit),
    );
  }

  releaseQuota(workspaceId: string, day: string): Promise<number> {
    return this.either(
      (redis) => redis.releaseQuota(workspaceId, day),
      (local) => local.releaseQuota(workspaceId, day),
    );
  }

  quotaUsed(workspaceId: string, day: string): Promise<number> {
    return this.either(
      (redis) => redis.quotaUsed(workspaceId, day),
      (local) => local.quotaUsed(workspaceId, day),
    );
  }

  quotaUsedMany(workspaceIds: readonly string[], day: string): Promise<number[]> {
    return this.either(
      (redis) => redis.quotaUsedMany(workspaceIds, day),
      (local) => local.quotaUsedMany(workspaceIds, day),
    );
  }

  /** Never throws: without Redis this process limits on its own, which is no reason to take it out of service. */
  async ping(): Promise<void> {
    if (this.local) return;
    await this.either(
      (redis) => redis.ping(),
      async () => {},
    );
  }

  async close(): Promise<void> {
    if (this.probe) clearInterval(this.probe);
    this.probe = null;
    await this.local?.close();
    await this.redis.close();
  }

  /** Redis's answer while it answers; this process's state from the first failure until Redis is back. */
  private async either<T>(onRedis: (redis: RedisLimitStore) => Promise<T>, onLocal: (local: MemoryLimitStore) => Promise<T>): Promise<T> {
    if (!this.local) {
      try {
        return await onRedis(this.redis);
      } catch (error) {
        if (!(error instanceof LimitStoreUnavailableError)) throw error;
        this.fallBack(error);
      }
    }
    return onLocal(this.local as MemoryLimitStore);
  }

  private note(workspaceId: string, day: string, admission: Admission): Admission {
    this.seen.set(workspaceId, { day, used: admission.quota.used });
    return admission;
  }

  private fallBack(error: unknown) {
    if (this.local) return;
    this.local = new MemoryLimitStore(null, (workspaceId, day) => this.lastCount(workspaceId, day));
    this.onChange({ shared: false, error });
    this.probe = setInterval(() => void this.tryRedis(), PROBE_MS);
    this.probe.unref();
  }

  /** Redis answers again: the units counted here meanwhile go to its counts, then it is the state again. */
  private async tryRedis() {
    const local = this.local;
    if (!local) return;
    try {
      await this.redis.ping();
    } catch {
      return;
    }
    // What was counted here beyond Redis's last count of each workspace (the local count started from it),
    // taken before requests go to Redis again and update those last counts.
    const counted = [...local.counts()].map(([workspaceId, { day, used }]) => ({
      workspaceId,
      day,
      units: used - this.lastCount(workspaceId, day),
    }));
    this.local = null;
    if (this.probe) clearInterval(this.probe);
    this.probe = null;
    let handedBack = 0;
    for (const { workspaceId, day, units } of counted) {
      if (units <= 0) continue;
      await this.redis.addQuota(workspaceId, day, units).catch(() => {}); // Redis gone again: these stay uncounted there
      handedBack += units;
    }
    await local.close();
    this.onChange({ shared: true, handedBack });
  }

  /** The last count Redis gave for a workspace's day (0 when none). */
  private lastCount(workspaceId: string, day: string): number {
    const last = this.seen.get(workspaceId);
    return last?.day === day ? last.used : 0;
  }
}
