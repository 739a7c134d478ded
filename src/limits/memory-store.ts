import type { DbHandle } from '../db/database.js';
import { saveQuotasUsed, storedQuotaUsed, storedQuotasUsed } from './quota-usage.repository.js';
import { type Admission, type AdmitRequest, type BucketResult, type LimitStore, type QuotaResult, refill } from './limit-store.js';

interface Bucket {
  tokens: number;
  at: number;
}

const FLUSH_INTERVAL_MS = 200;
const BUCKET_SWEEP_SIZE = 100_000;

/**
 * Limit state for one server process. Buckets live in memory only (a restart refills them, as a
 * moment's pause would). Quota counts are exact in memory and written to the `quota_usage` table
 * within a fifth of a second, and on close, so a restart keeps the day's count.
 * Without a database (`db` null: the stand-in while Redis is unreachable, failover-store.ts), counts start
 * from `seed` (the last count Redis gave) and are kept in memory only: processes sharing a database would
 * overwrite each other's rows.
 */
export class MemoryLimitStore implements LimitStore {
  private readonly buckets = new Map<string, Bucket>();
  /** workspace → its count for `day`; loaded from the database on first use. */
  private readonly quotas = new Map<string, { day: string; used: number }>();
  private readonly loading = new Map<string, Promise<void>>();
  private readonly dirty = new Set<string>();
  private readonly timer: NodeJS.Timeout;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: DbHandle | null,
    private readonly seed: (workspaceId: string, day: string) => number = () => 0,
  ) {
    this.timer = setInterval(() => void this.flush(), FLUSH_INTERVAL_MS);
    this.timer.unref();
  }

  /** Each workspace's count here, and its day: what a failover hands back to Redis. */
  counts(): ReadonlyMap<string, { readonly day: string; readonly used: number }> {
    return this.quotas;
  }

  admit(r: AdmitRequest): Promise<Admission> {
    const admission = this.admitNow(r);
    return admission ? Promise.resolve(admission) : this.counter(r.workspaceId, r.day).then(() => this.admit(r));
  }

  /** Synchronous once the workspace's count is loaded: this runs on every request. */
  admitNow(r: AdmitRequest): Admission | undefined {
    const entry = this.quotas.get(r.workspaceId);
    if (!entry || entry.day < r.day) return undefined;
    const bucket = this.take(r.bucketKey, r.capacity, r.refillPerSecond, r.nowMs, true);
    const current = entry.day === r.day;
    const reserve = bucket.allowed && r.reserve && current && entry.used < r.limit;
    if (reserve) {
      entry.used += 1;
      this.dirty.add(r.workspaceId);
    }
    return { bucket, quota: { allowed: reserve, used: current ? entry.used : 0 } };
  }

  async bucket(key: string, capacity: number, refillPerSecond: number, nowMs: number, take: boolean): Promise<BucketResult> {
    return this.take(key, capacity, refillPerSecond, nowMs, take);
  }

  async refund(key: string, capacity: number, refillPerSecond: number, nowMs: number): Promise<BucketResult> {
    const bucket = this.buckets.get(key);
    if (!bucket) return { allowed: true, tokens: capacity }; // absent: full already
    bucket.tokens = Math.min(capacity, refill(bucket.tokens, bucket.at, nowMs, capacity, refillPerSecond) + 1);
    bucket.at = Math.max(bucket.at, nowMs);
    return { allowed: true, tokens: bucket.tokens };
  }

  private take(key: string, capacity: number, refillPerSecond: number, nowMs: number, take: boolean): BucketResult {
    let bucket = this.buckets.get(key);
    if (!bucket) {
      if (this.buckets.size >= BUCKET_SWEEP_SIZE) this.sweep(nowMs, capacity, refillPerSecond);
      bucket = { tokens: capacity, at: nowMs };
      this.buckets.set(key, bucket);
    }
    bucket.tokens = refill(bucket.tokens, bucket.at, nowMs, capacity, refillPerSecond);
    bucket.at = Math.max(bucket.at, nowMs);
    const allowed = bucket.tokens >= 1;
    if (allowed && take) bucket.tokens -= 1;
    return { allowed, tokens: bucket.tokens };
  }

  /** Drops buckets that have refilled completely: they equal a new one. */
  private sweep(nowMs: number, capacity: number, refillPerSecond: number) {
    for (const [key, b] of this.buckets) if (refill(b.tokens, b.at, nowMs, capacity, refillPerSecond) >= capacity) this.buckets.delete(key);
  }

  private async counter(workspaceId: string, day: string) {
    let entry = this.quotas.get(workspaceId);
    if (!entry || entry.day < day) {
      // Concurrent first requests share one load; the count itself is then changed synchronously.
      let load = this.loading.get(workspaceId);
      if (!load) {
        load = (this.db ? storedQuotaUsed(this.db, workspaceId, day) : Promise.resolve(this.seed(workspaceId, day)))
          .then((used) => {
            const current = this.quotas.get(workspaceId);
            if (!current || current.day < day) this.quotas.set(workspaceId, { day, used });
          })
          .finally(() => this.loading.delete(workspaceId));
        this.loading.set(workspaceId, load);
      }
      await load;
      entry = this.quotas.get(workspaceId);
      if (!entry) throw new Error(`quota state of ${workspaceId} missing after its load`); // the load always sets it
    }
    return entry;
  }

  async reserveQuota(workspaceId: string, day: string, limit: number): Promise<QuotaResult> {
    const entry = await this.counter(workspaceId, day);
    if (entry.day !== day || entry.used >= limit) return { allowed: false, used: entry.used };
    entry.used += 1;
    this.dirty.add(workspaceId);
    return { allowed: true, used: entry.used };
  }

  async releaseQuota(workspaceId: string, day: string): Promise<number> {
    const entry = await this.counter(workspaceId, day);
    if (entry.day === day && entry.used > 0) {
      entry.used -= 1;
      this.dirty.add(workspaceId);
    }
    return entry.used;
  }

  async quotaUsed(workspaceId: string, day: string): Promise<number> {
    const entry = await this.counter(workspaceId, day);
    return entry.day === day ? entry.used : 0;
  }

  /** Counts in memory where loaded (newer than the table), the others from `quota_usage`: one query. */
  async quotaUsedMany(workspaceIds: readonly string[], day: string): Promise<number[]> {
    const unloaded = workspaceIds.filter((id) => !this.loadedFor(id, day));
    const stored = new Map<string, number>();
    if (unloaded.length > 0 && this.db) {
      for (const row of await storedQuotasUsed(this.db, unloaded, day)) stored.set(row.workspace_id, Number(row.used));
    }
    // Read after the query: a count loaded meanwhile is the newer one.
    return workspaceIds.map((id) => {
      const entry = this.loadedFor(id, day);
      return entry ? (entry.day === day ? entry.used : 0) : (stored.get(id) ?? (this.db ? 0 : this.seed(id, day)));
    });
  }

  /** The workspace's count when it is in memory for `day` or a later day. */
  private loadedFor(workspaceId: string, day: string) {
    const entry = this.quotas.get(workspaceId);
    return entry && entry.day >= day ? entry : undefined;
  }

  /** Writes the changed counts; one flush at a time. */
  flush(): Promise<void> {
    const { db } = this;
    this.flushing = this.flushing.then(async () => {
      if (this.dirty.size === 0 || !db) return;
      const rows = [...this.dirty].flatMap((workspaceId) => {
        const quota = this.quotas.get(workspaceId);
        return quota ? [{ workspace_id: workspaceId, ...quota }] : [];
      });
      this.dirty.clear();
      try {
        await saveQuotasUsed(db, rows);
      } catch {
        for (const row of rows) this.dirty.add(row.workspace_id); // try again at the next tick
      }
    });
    return this.flushing;
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}
