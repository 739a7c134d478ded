// mergeInserts (db/merged-inserts.ts): PostgreSQL writes a batch of inserts as multi-row inserts, table by
// table in TABLES_PARENTS_FIRST's order; that order must put every parent before its children, and a batch
// with anything but single-row inserts must go as it is.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { migrateToLatest } from './migrate.js';
import { TABLES_PARENTS_FIRST, mergeInserts, onlyMergeableInserts } from './merged-inserts.js';
import { openDatabase } from './open.js';

test('every table is listed, and every foreign key points to a table listed before its own', async () => {
  const database = openDatabase('sqlite::memory:');
  try {
    await migrateToLatest(database);
    const tables = (
      await sql<{
        name: string;
      }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%' and name not like 'kysely_%'`.execute(database.db)
    ).rows.map((r) => r.name);
    assert.deepEqual([...tables].sort(), [...TABLES_PARENTS_FIRST].sort());
    for (const table of tables) {
      const keys = (await sql<{ table: string }>`select "table" from pragma_foreign_key_list(${table})`.execute(database.db)).rows;
      for (const { table: parent } of keys) {
        // A table's own rows keep their queue order (and one multi-row insert is checked at its end): a subtask
        // queued after its task holds.
        if (parent === table) continue;
        assert.ok(TABLES_PARENTS_FIRST.indexOf(parent) < TABLES_PARENTS_FIRST.indexOf(table), `${parent} is listed before ${table}`);
      }
    }
  } finally {
    await database.close();
  }
});

const insert = (table: string, name: string, ...values: unknown[]) => ({
  name,
  sql: `insert into "${table}" (${values.map((_, i) => `"c${i}"`).join(', ')}) values (${values.map((_, i) => `$${i + 1}`).join(', ')})`,
  parameters: values,
});

test('a batch of inserts: parents first, each table in queue order, each run one multi-row insert', () => {
  // Two clients as an import queues them: the second in a placeholder company queued after the first client.
  const batch = [
    insert('clients', 'insert_client', 'c1', 'co1'),
    insert('client_companies', 'insert_client_company', 'c1', 'co1'),
    insert('audit_log', 'insert_audit_entry', 'e1'),
    insert('companies', 'insert_company', 'co2'),
    insert('audit_log', 'insert_audit_entry', 'e2'),
    insert('clients', 'insert_client', 'c2', 'co2'),
    insert('client_companies', 'insert_client_company', 'c2', 'co2'),
    insert('audit_log', 'insert_audit_entry', 'e3'),
  ];
  assert.deepEqual(mergeInserts(batch), [
    insert('companies', 'insert_company', 'co2'),
    {
      name: 'insert_client*2',
      sql: 'insert into "clients" ("c0", "c1") values ($1, $2), ($3, $4)',
      parameters: ['c1', 'co1', 'c2', 'co2'],
    },
    {
      name: 'insert_client_company*2',
      sql: 'insert into "client_companies" ("c0", "c1") values ($1, $2), ($3, $4)',
      parameters: ['c1', 'co1', 'c2', 'co2'],
    },
    { name: 'insert_audit_entry*3', sql: 'insert into "audit_log" ("c0") values ($1), ($2), ($3)', parameters: ['e1', 'e2', 'e3'] },
  ]);
});

test('a batch with anything but single-row inserts of listed tables goes as it is (and is not mergeable into a group)', () => {
  const update = { sql: 'update "clients" set "given_name" = $1 where "id" = $2', parameters: ['A', 'c1'] };
  const returning = { ...insert('invoice_counters', 'take', 'w'), onRow: () => {} };
  for (const other of [update, returning, insert('not_a_table', 'x', 1)]) {
    const batch = [insert('clients', 'insert_client', 'c1'), other, insert('clients', 'insert_client', 'c2')];
    assert.equal(mergeInserts(batch), batch);
    assert.equal(onlyMergeableInserts(batch), false);
    assert.equal(onlyMergeableInserts([other]), false);
  }
  assert.equal(onlyMergeableInserts([insert('clients', 'insert_client', 'c1')]), true);
});
