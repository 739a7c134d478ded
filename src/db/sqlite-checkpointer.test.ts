// Rule (durability, robustness): the SQLite WAL checkpointer is a helper thread. When it fails (here it cannot open
// the database: its directory is gone), the failure is reported to its error handler and nothing else: no uncaught
// exception takes the process down; the next write starts another thread, and stop() still resolves.
import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { heldWithin } from '../../test/helpers/eventually.js';
import { startCheckpointer } from './sqlite-checkpointer.js';

test('a checkpointer thread that cannot open the database fails alone, and the next write starts another', async () => {
  let writes = 0;
  const failures: string[] = [];
  const missing = join(tmpdir(), `portal-no-such-dir-${process.pid}`, 'portal.db');
  const checkpointer = startCheckpointer(
    missing,
    () => writes,
    50,
    (error) => failures.push(error.message),
  );
  writes++;
  await heldWithin(10_000, 'the first thread failed', async () => failures.length === 1);
  writes++;
  await heldWithin(10_000, 'a second thread started and failed', async () => failures.length === 2);
  assert.deepEqual(failures, [
    'Cannot open database because the directory does not exist',
    'Cannot open database because the directory does not exist',
  ]);
  await checkpointer.stop();
});
