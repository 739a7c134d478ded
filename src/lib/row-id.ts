import { randomUUID } from 'node:crypto';

/**
 * A new row's id: a UUID in version 4's layout (its version and variant bits), whose first 48 bits are the time in
 * milliseconds and the other 74 random. New rows' ids then sort after the ones before, so an insert adds to the right
 * edge of each index on an id instead of dirtying a random page of it (SQLite writes each page touched to the WAL
 * and copies it back at a checkpoint). The time is already public as the row's createdAt; 74 random bits keep ids
 * unguessable. Secrets and token ids stay wholly random (randomUUID).
 */
export function newRowId(now = Date.now()): string {
  const time = now.toString(16).padStart(12, '0');
  return `${time.slice(0, 8)}-${time.slice(8, 12)}${randomUUID().slice(13)}`;
}
