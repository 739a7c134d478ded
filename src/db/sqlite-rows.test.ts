// Rule (issue 46, point 1): SQLite's reads build their rows from arrays of values (src/db/sqlite.ts, rowReader),
// and those rows are exactly better-sqlite3's own: the same keys in the same order, the same values, a later column of
// the same name winning, any column name a plain key (quotes, spaces), on both ways a read goes (queryPrepared, and
// Kysely's own queries). A column named "__proto__" is a key of its own (better-sqlite3 sets the row's prototype
// with it instead). A table changed under a prepared read gives its new columns.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import SqliteDatabase from 'better-sqlite3';
import { sql } from 'kysely';
import { openSqlite } from './sqlite.js';

const SETUP = `create table t (id integer primary key, name text, note text, score real, "odd ""name"" here" text, "__proto__" text);
  insert into t values (1, 'Ada', null, 1.5, 'q', 'p1'), (2, 'Bob', 'x', -2, null, 'p2');`;
const QUERY = 'select id, name, note, score, "odd ""name"" here", 7 as name from t where id >= ? order by id';

test('rows read from arrays are better-sqlite3’s own rows, through queryPrepared and through Kysely', async (t) => {
  const expected = new SqliteDatabase(':memory:');
  expected.exec(SETUP);
  const own = expected.prepare(QUERY).all(1) as Record<string, unknown>[];
  expected.close();

  const database = openSqlite('sqlite::memory:');
  t.after(() => database.close());
  await sql.raw(SETUP.split(';')[0]).execute(database.db);
  await sql.raw(SETUP.split(';')[1]).execute(database.db);

  const prepared = (await database.queryPrepared('rows_test', QUERY, [1])) as Record<string, unknown>[];
  const kysely = (await sql.raw<Record<string, unknown>>(QUERY.replace('?', '1')).execute(database.db)).rows;
  for (const rows of [prepared, kysely]) {
    assert.deepEqual(rows, own);
    assert.deepEqual(
      rows.map((row) => Object.keys(row)),
      own.map((row) => Object.keys(row)),
    );
    assert.deepEqual([rows[0].name, rows[0]['odd "name" here']], [7, 'q']);
  }
  const [proto] = (await database.queryPrepared('rows_test_proto', 'select "__proto__" from t where id = ?', [1])) as object[];
  assert.deepEqual([Object.hasOwn(proto, '__proto__'), Object.getPrototypeOf(proto)], [true, Object.prototype]);
  assert.equal(Object.getOwnPropertyDescriptor(proto, '__proto__')?.value, 'p1');

  // The table changed under the prepared read: its new column comes back too.
  await sql.raw("alter table t add column extra text default 'e'").execute(database.db);
  const wider = (await database.queryPrepared('rows_test_all', 'select * from t where id >= ?', [2])) as Record<string, unknown>[];
  assert.deepEqual(Object.keys(wider[0]), ['id', 'name', 'note', 'score', 'odd "name" here', '__proto__', 'extra']);
  const again = (await database.queryPrepared('rows_test_all', 'select * from t where id >= ?', [2])) as Record<string, unknown>[];
  assert.equal(again[0].extra, 'e');
});

test('one statement serves both ways: after a read built its rows from arrays, a write’s RETURNING row is an object', async (t) => {
  const database = openSqlite('sqlite::memory:');
  t.after(() => database.close());
  await sql.raw('create table t (id integer primary key, name text)').execute(database.db);
  const text = 'insert into t (name) values (?) returning id, name';
  assert.deepEqual(await database.queryPrepared('rows_test_returning', text, ['Ada']), [{ id: 1, name: 'Ada' }]);
  let returned: unknown;
  await database.writeBatch([{ sql: text, parameters: ['Bob'], onRow: (row) => (returned = row) }]);
  assert.deepEqual(returned, { id: 2, name: 'Bob' });
  assert.deepEqual(await database.queryPrepared('rows_test_returning', text, ['Cy']), [{ id: 3, name: 'Cy' }]);
});
