// Rule (issue 46, point 1): PostgreSQL's prepared reads (queryPrepared: every list page and point read) make their rows
// by a literal of the statement's columns straight from each DataRow's strings (src/db/postgres.ts, db/row-maker.ts), and
// those rows are exactly pg's own: the same keys in the same order, the same values as pg's parsers give them (numbers,
// dates, nulls), a later column of the same name winning, any column name a plain key. A column named "__proto__" is
// a key of its own, never the row's prototype. Read again (the statement prepared on the connection), the same. A read
// PostgreSQL fails rejects with its error, and the pool's connections serve the next reads, twenty at once.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { BACKENDS, freshDatabaseUrl } from '../../test/helpers/harness.js';
import { openDatabase } from './open.js';
import { postgresConnection } from './postgres.js';

const SETUP = [
  `create table t (id integer primary key, name text, note text, score real, at timestamptz, "odd ""name"" here" text, "__proto__" text)`,
  `insert into t values (1, 'Ada', null, 1.5, '2026-11-29T10:00:00Z', 'q', 'p1'), (2, 'Bob', 'x', -2, null, null, 'p2')`,
];
const QUERY = 'select id, name, note, score, at, "odd ""name"" here", 7 as name from t where id >= $1 order by id';

test('prepared reads on PostgreSQL give pg’s own rows, made from the wire', {
  skip: !BACKENDS.includes('postgres') && 'no PostgreSQL',
}, async (t) => {
  const url = await freshDatabaseUrl(t, 'postgres');
  const database = openDatabase(url);
  t.after(() => database.close());
  for (const statement of SETUP) await sql.raw(statement).execute(database.db);

  const { connectionString, schema } = postgresConnection(url);
  const client = new pg.Client({ connectionString, options: `-c search_path=${schema}` });
  await client.connect();
  t.after(() => client.end());
  const own = (await client.query(QUERY, [1])).rows as Record<string, unknown>[];

  for (let turn = 0; turn < 2; turn++) {
    const rows = (await database.queryPrepared('rows_test', QUERY, [1])) as Record<string, unknown>[];
    assert.deepEqual(rows, own);
    assert.deepEqual(
      rows.map((row) => Object.keys(row)),
      own.map((row) => Object.keys(row)),
    );
    assert.deepEqual([rows[0].name, rows[0]['odd "name" here'], rows[1].note], [7, 'q', 'x']);
    assert.ok(rows[0].at instanceof Date && rows[0].at.toISOString() === '2026-11-29T10:00:00.000Z');
  }
  const [proto] = (await database.queryPrepared('rows_test_proto', 'select "__proto__" from t where id = $1', [1])) as object[];
  assert.deepEqual([Object.hasOwn(proto, '__proto__'), Object.getPrototypeOf(proto)], [true, Object.prototype]);
  assert.equal(Object.getOwnPropertyDescriptor(proto, '__proto__')?.value, 'p1');

  await assert.rejects(database.queryPrepared('rows_test_fails', 'select 1 / (id - $1) as n from t', [1]), /division by zero/);
  assert.deepEqual(await database.queryPrepared('rows_test_fails', 'select 1 / (id - $1) as n from t', [0]), [{ n: 1 }, { n: 0 }]);
  const many = await Promise.all(Array.from({ length: 20 }, () => database.queryPrepared('rows_test', QUERY, [2])));
  assert.deepEqual(
    many,
    Array.from({ length: 20 }, () => own.slice(1)),
  );
});
