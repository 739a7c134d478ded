import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BACKENDS, freshDatabaseUrl, openDatabase } from '../../../../test/helpers/harness.js';
import { migrateToLatest } from '../../../db/migrate.js';
import { createFirstWorkspace } from './workspaces.service.js';

/**
 * The first start's workspace is made once however many processes start together on an empty database: five
 * connections of their own (as five processes would have) each count and create at once. Without the lock,
 * PostgreSQL's READ COMMITTED let every one of them count none and create its own. (SQLite's processes are
 * in test/server.test.ts: one process's connections share its thread, so they cannot race like processes.)
 */
test('createFirstWorkspace: five at once on an empty PostgreSQL database make one workspace', {
  skip: !BACKENDS.includes('postgres') && 'no PostgreSQL',
}, async (t) => {
  const url = await freshDatabaseUrl(t, 'postgres');
  const databases = Array.from({ length: 5 }, () => openDatabase(url));
  t.after(() => Promise.all(databases.map((database) => database.close())));
  await migrateToLatest(databases[0]);
  const created = await Promise.all(databases.map((database) => createFirstWorkspace(database, Date.now())));
  assert.equal(created.filter(Boolean).length, 1, 'one of them created it');
  const { n } = await databases[0].db
    .selectFrom('workspaces')
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  assert.equal(Number(n), 1);
  assert.equal(await createFirstWorkspace(databases[1], Date.now()), undefined, 'and none after it');
});
