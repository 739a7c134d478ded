import assert from 'node:assert/strict';

/** The value, asserted present: a failing test says what was missing instead of reading a property of undefined. */
export function present<T>(value: T | null | undefined, what: string): T {
  assert.ok(value !== undefined && value !== null, `${what} is missing`);
  return value;
}
