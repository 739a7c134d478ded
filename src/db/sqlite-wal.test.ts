import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { sql } from 'kysely';
import { openSqlite } from './sqlite.js';

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
