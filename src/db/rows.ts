/** Row helpers shared by the repositories: JSON and id-list columns, and the fields every object has. */
import type { PersonColumns } from './schema.js';
/** JSON object columns are text in both dialects; rows written by the service always hold an object. */
export function parseObject<T = Record<string, unknown>>(text: string | null): T {
  return (text ? JSON.parse(text) : {}) as T;
}

/** Comma-separated id columns (UUIDs never contain a comma). */
export const splitIds = (text: string): string[] => (text ? text.split(',') : []);
export const joinIds = (ids: readonly string[]): string => ids.join(',');

/** `in (...)` needs at least one value: no row has the empty string as id. */
export const nonEmpty = (ids: readonly string[]): readonly string[] => (ids.length > 0 ? ids : ['']);

/** The fields every stored object answers with, from its row. */
export const objectFields = <Kind extends string>(row: { id: string; created_at: string; updated_at: string }, object: Kind) => ({
  id: row.id,
  object,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/** The fields of a person (a client or an internal user), from its row. */
export const personFields = (row: PersonColumns) => ({
  email: row.email,
  givenName: row.given_name,
  familyName: row.family_name,
  ...(row.avatar_image_url ? { avatarImageUrl: row.avatar_image_url } : {}),
});

/** A claim's read: `FOR UPDATE SKIP LOCKED` on PostgreSQL, so processes never take the same rows; SQLite has one writer. */
export const skipLocked = <Q extends { forUpdate(): Q; skipLocked(): Q }>(query: Q, dialect: 'sqlite' | 'postgres'): Q =>
  dialect === 'postgres' ? query.forUpdate().skipLocked() : query;

/** A read-modify-write's read: `FOR UPDATE` on PostgreSQL (a concurrent change waits for this one); SQLite has one writer. */
export const lockedForUpdate = <Q extends { forUpdate(): Q }>(query: Q, dialect: 'sqlite' | 'postgres'): Q =>
  dialect === 'postgres' ? query.forUpdate() : query;
