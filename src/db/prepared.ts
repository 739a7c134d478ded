import { CompiledQuery, type Compilable, type Kysely } from 'kysely';
import { databaseOf } from './open.js';
import type { DB } from './schema.js';

/**
 * A hot-path read written once with Kysely and compiled once per dialect: parameters are named
 * placeholders filled in at each call. Outside a transaction it runs as a prepared statement (see
 * Database.queryPrepared); inside one, through the transaction as usual.
 */
/** Marks a named parameter in the compiled query: no real value starts and ends with a NUL. */
const SENTINEL = '\u0000';

export function preparedQuery<P extends Record<string, unknown>, Row>(name: string, build: (db: Kysely<DB>, params: P) => Compilable<Row>) {
  const compiled = new Map<unknown, { sql: string; slots: ({ param: keyof P } | { value: unknown })[] }>();

  function compile(db: Kysely<DB>) {
    const adapter = db.getExecutor().adapter.constructor; // one compiled form per dialect
    let entry = compiled.get(adapter);
    if (!entry) {
      const sentinels = new Proxy({} as P, { get: (_t, key) => `${SENTINEL}${String(key)}${SENTINEL}` });
      const query = build(db, sentinels).compile();
      const slots = query.parameters.map((value) =>
        typeof value === 'string' && value.length > 1 && value.startsWith(SENTINEL) && value.endsWith(SENTINEL)
          ? { param: value.slice(1, -1) as keyof P }
          : { value },
      );
      entry = { sql: query.sql, slots };
      compiled.set(adapter, entry);
    }
    return entry;
  }

  async function all(db: Kysely<DB>, params: P): Promise<Row[]> {
    const { sql, slots } = compile(db);
    const values = slots.map((slot) => ('param' in slot ? params[slot.param] : slot.value));
    const database = databaseOf(db);
    if (database) return (await database.queryPrepared(name, sql, values)) as Row[];
    return (await db.executeQuery<Row>(CompiledQuery.raw(sql, values))).rows;
  }

  return {
    all,
    first: async (db: Kysely<DB>, params: P): Promise<Row | undefined> => (await all(db, params))[0],
  };
}
