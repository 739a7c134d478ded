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
