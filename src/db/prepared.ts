import type { Compilable, Insertable, Kysely } from 'kysely';
import type { Statement } from './database.js';
import { databaseOf } from './open.js';
import type { DB } from './schema.js';

/** Marks a named parameter in the compiled query: no real value starts and ends with a NUL. */
const SENTINEL = '\u0000';

type Slot<P> = { param: keyof P } | { value: unknown };

/** Every column of a table's row, each given (null where it may be): what a prepared insert binds. */
export type FullRow<T extends keyof DB> = { [K in keyof Insertable<DB[T]>]-?: Insertable<DB[T]>[K] };

/**
 * A query written once with Kysely and compiled once per dialect: parameters are named placeholders
 * (sentinel strings at compile time, one per key of the first call's params) filled in at each call,
 * so a request builds no query and the SQL text is the same string every time (the statement caches
 * find it at once). Every call passes the same keys: the types say so (no optional parameters).
 */
function compiledOnce<P extends Record<string, unknown>>(name: string, build: (db: Kysely<DB>, params: P) => Compilable<unknown>) {
  const compiled = new Map<unknown, { sql: string; slots: Slot<P>[] }>();

  return function bind(db: Kysely<DB>, params: P): Statement {
    const adapter = db.getExecutor().adapter.constructor; // one compiled form per dialect
    let entry = compiled.get(adapter);
    if (!entry) {
      const sentinels = Object.fromEntries(Object.keys(params).map((key) => [key, `${SENTINEL}${key}${SENTINEL}`])) as P;
      // Without plugins: a plugin (a test's capture) must see the queries run, not this template.
      const query = build(db.withoutPlugins(), sentinels).compile();
      const slots = query.parameters.map(
        (value): Slot<P> =>
          typeof value === 'string' && value.length > 1 && value.startsWith(SENTINEL) && value.endsWith(SENTINEL)
            ? { param: value.slice(1, -1) as keyof P }
            : { value },
      );
      entry = { sql: query.sql, slots };
      compiled.set(adapter, entry);
    }
    const { sql, slots } = entry;
    const parameters = new Array(slots.length);
    for (let i = 0; i < slots.length; i++) {
      const slot = slots[i];
      parameters[i] = 'param' in slot ? params[slot.param] : slot.value;
    }
    return { name, sql, parameters };
  };
}

/**
 * A hot-path read, compiled once per dialect. On a database's own handle it runs as a prepared statement
 * (see Database.queryPrepared); on any other (a transaction, a handle with plugins), built and run by
 * Kysely as usual.
 */
export function preparedQuery<P extends Record<string, unknown>, Row>(name: string, build: (db: Kysely<DB>, params: P) => Compilable<Row>) {
  const bind = compiledOnce(name, build);

  async function all(db: Kysely<DB>, params: P): Promise<Row[]> {
    const database = databaseOf(db);
    if (!database) return (await db.executeQuery<Row>(build(db, params).compile())).rows;
    const { sql, parameters } = bind(db, params);
    return (await database.queryPrepared(name, sql, parameters)) as Row[];
  }

  return {
    all,
    first: async (db: Kysely<DB>, params: P): Promise<Row | undefined> => (await all(db, params))[0],
  };
}

/**
 * A hot-path write (insert, update, delete), compiled once per dialect: `bind(db, params)` gives the
 * statement a unit of work queues (`work.write`), without building or compiling anything per request.
 */
export const preparedWrite: <P extends Record<string, unknown>>(
  name: string,
  build: (db: Kysely<DB>, params: P) => Compilable<unknown>,
) => (db: Kysely<DB>, params: P) => Statement = compiledOnce;
