/** JSON object columns are text in both dialects; rows written by the service always hold an object. */
export function parseObject<T = Record<string, unknown>>(text: string | null): T {
  return (text ? JSON.parse(text) : {}) as T;
}

/** Comma-separated id columns (UUIDs never contain a comma). */
export const splitIds = (text: string): string[] => (text ? text.split(',') : []);
export const joinIds = (ids: readonly string[]): string => ids.join(',');

/** `in (...)` needs at least one value: no row has the empty string as id. */
export const nonEmpty = (ids: readonly string[]): readonly string[] => (ids.length > 0 ? ids : ['']);
