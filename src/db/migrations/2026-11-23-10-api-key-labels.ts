import type { Kysely } from 'kysely';
import type { MigrationFactory } from './migration.js';

/**
 * A label on API keys, so an operator can tell them apart ("console" marks the key the admin console's
 * tokens are minted for). Optional: keys made before it have none.
 */
export const apiKeyLabels: MigrationFactory = () => ({
  // biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not as typed today
  async up(db: Kysely<any>) {
    await db.schema.alterTable('api_keys').addColumn('label', 'text').execute();
  },
});
