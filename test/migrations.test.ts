import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { openDatabase } from '../src/db/open.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { MIGRATIONS } from '../src/db/migrations/index.js';
import { BACKENDS, freshDatabaseUrl } from './helpers/harness.js';

for (const backend of BACKENDS) {
  describe(`migrations [${backend}]`, () => {
    test('applied once in order, then a second run is a no-op', async (t) => {
      const database = openDatabase(await freshDatabaseUrl(t, backend));
      t.after(() => database.close());
      assert.deepEqual(await migrateToLatest(database), Object.keys(MIGRATIONS));
      const secret = await database.db.selectFrom('server_secrets').selectAll().execute();
      assert.deepEqual(await migrateToLatest(database), []);
      assert.deepEqual(await database.db.selectFrom('server_secrets').selectAll().execute(), secret, 'secrets kept');
    });
  });
}
