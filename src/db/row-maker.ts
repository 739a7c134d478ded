/** A function making an array of a row's values an object of the given column names. */
export type RowMaker = (values: readonly unknown[]) => Record<string, unknown>;

/**
 * A row maker for one statement's columns: an object literal, written once a statement (each name quoted as a JSON
 * string, so any name is a key and never code); a later column of the same name wins, as in both drivers' own rows.
 * Rows read as arrays and made objects here cost less than the drivers' own objects (better-sqlite3's are
 * dictionaries; pg builds its own key by key in one function, whose property stores see every shape the service
 * reads), and a statement's rows share one shape, so what reads them reads faster too.
 */
export function rowMaker(columns: readonly string[]): RowMaker {
  // "__proto__" as a plain key would set the prototype; computed, it is a key like any other.
  const key = (name: string) => (name === '__proto__' ? `[${JSON.stringify(name)}]` : JSON.stringify(name));
  const fields = columns.map((name, i) => `${key(name)}: v[${i}]`).join(', ');
  return new Function('v', `return { ${fields} };`) as RowMaker;
}
