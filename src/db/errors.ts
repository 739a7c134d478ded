import type { BusyRetry } from '../lib/background-loop.js';

/** How each driver reports a failure: the storage half of error handling (the API half is in db/constraints.ts). */

const code = (error: unknown) => (error as { code?: unknown } | null)?.code;

export function isUniqueViolation(error: unknown): boolean {
  const c = code(error);
  return c === '23505' || c === 'SQLITE_CONSTRAINT_UNIQUE' || c === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

export function isForeignKeyViolation(error: unknown): boolean {
  const c = code(error);
  return c === '23503' || c === 'SQLITE_CONSTRAINT_FOREIGNKEY';
}

/**
 * True when SQLite answered "database is locked": another connection (another process) held the write lock past
 * the busy timeout. Worth trying again shortly; nothing is wrong with the query or the database.
 */
export function isDatabaseBusy(error: unknown): boolean {
  const c = code(error);
  return typeof c === 'string' && (c === 'SQLITE_BUSY' || c.startsWith('SQLITE_BUSY_') || c === 'SQLITE_LOCKED');
}

interface BusyLog {
  debug(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

/** Rounds in a row that met a locked database before a worker warns (and every this many after). */
const BUSY_WARN_EVERY = 10;

/**
 * A worker's rounds (lib/background-loop.ts) retried when they meet a locked SQLite database: each told at debug
 * level, a warning (no stack: nothing failed) when the lock has lasted BUSY_WARN_EVERY rounds in a row.
 */
export function busyRetry(log: BusyLog, worker: string): BusyRetry {
  return {
    isBusy: isDatabaseBusy,
    onBusy(roundsInARow, retryInMs) {
      const fields = { roundsInARow, retryInMs };
      const message = `${worker}: the database is locked by another writer (database is locked); round retried`;
      if (roundsInARow % BUSY_WARN_EVERY === 0) log.warn(fields, message);
      else log.debug(fields, message);
    },
  };
}

const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  '57P01',
  '57P03',
  '08006',
  '08001',
  '08003',
  'SQLITE_BUSY',
]);

/** True when an error means the database cannot be reached (as opposed to a bad query). */
export function isConnectionError(error: unknown): boolean {
  const c = code(error);
  if (typeof c === 'string' && CONNECTION_CODES.has(c)) return true;
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === 'string' && /timeout exceeded when trying to connect|Connection terminated/i.test(message);
}
