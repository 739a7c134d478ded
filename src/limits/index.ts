import type { DbHandle } from '../db/database.js';
import type { Config } from '../config.js';
import type { LimitStore } from './limit-store.js';
import { MemoryLimitStore } from './memory-store.js';

/**
 * Redis when REDIS_URL is set (every process shares the state; this process's own stands in while Redis is
 * unreachable, failover-store.ts), else this process's memory.
 */
export async function createLimitStore(config: Config, db: DbHandle): Promise<LimitStore> {
  if (!config.redisUrl) return new MemoryLimitStore(db);
  const [{ RedisLimitStore }, { FailoverLimitStore }] = await Promise.all([import('./redis-store.js'), import('./failover-store.js')]);
  return new FailoverLimitStore(new RedisLimitStore(config.redisUrl, config.limits.redisKeyPrefix));
}
