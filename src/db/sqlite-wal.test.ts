import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import SqliteDatabase from 'better-sqlite3';
import { sql } from 'kysely';
import { openSqlite } from './sqlite.js';
import { unitOfWork } from './unit-of-work.js';

/**
 * The WAL starts over under sustained writes: its checkpoints on the worker thread never restart it, so
 * 6,000 commits of a page each (24 MB of frames) would leave a 24 MB WAL; the main connection's own
 * checkpoint past 16 MiB keeps it there or below. No timer runs between these commits (each awaits only
 * promises already settled), so the worker thread never starts: this is the main connection's rule alone.
 */
test('sqlite: a WAL written without pause starts over past 16 MiB instead of growing', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'portal-wal-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'wal.db');
  const database = openSqlite(`sqlite:${path}`);
  try {
    await sql`create table pages (id integer primary key, body blob not null)`.execute(database.db);
    const body = Buffer.alloc(3000, 7);
    let largest = 0;
    for (let i = 0; i < 6000; i++) {
      await sql`insert into pages (body) values (${body})`.execute(database.db);
      if (i % 500 === 0) largest = Math.max(largest, statSync(`${path}-wal`).size);
    }
    const { rows } = await sql<{ n: number }>`select count(*) as n from pages`.execute(database.db);
    assert.equal(rows[0].n, 6000);
    largest = Math.max(largest, statSync(`${path}-wal`).size);
    assert.ok(largest <= 17 * 1024 * 1024, `the WAL file reached ${(largest / 1024 / 1024).toFixed(1)} MB`);
  } finally {
    await database.close();
  }
});

/**
 * A read-modify-write unit (`transaction: true`) takes the write lock before its first read, so another process's
 * write (the `portal` CLI beside a server, here a second connection) waits for it rather than slipping in between;
 * with a deferred `begin`, the other write went through and the unit's own write then failed at once with
 * "database is locked" (SQLite does not wait when a reader's snapshot is stale).
 */
test('sqlite: a read-modify-write unit holds the write lock from its first read; another process waits for it', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'portal-wal-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'lock.db');
  const database = openSqlite(`sqlite:${path}`);
  const other = new SqliteDatabase(path);
  try {
    await sql`create table counters (id integer primary key, n integer not null)`.execute(database.db);
    await sql`insert into counters (id, n) values (1, 0)`.execute(database.db);
    other.pragma('busy_timeout = 0'); // refused at once while the unit holds the lock, instead of waiting 5 s
    const next = await unitOfWork(
      database,
      async (work) => {
        const { rows } = await sql<{ n: number }>`select n from counters where id = 1`.execute(work.db);
        assert.throws(() => other.prepare('update counters set n = n + 100 where id = 1').run(), { code: 'SQLITE_BUSY' });
        work.write(sql`update counters set n = ${rows[0].n + 1} where id = 1`.compile(work.db));
        return rows[0].n + 1;
      },
      { transaction: true },
    );
    assert.equal(next, 1);
    other.prepare('update counters set n = n + 100 where id = 1').run(); // the lock is free once the unit committed
    assert.deepEqual(other.prepare('select n from counters where id = 1').get(), { n: 101 });
  } finally {
    other.close();
    await database.close();
  }
});
