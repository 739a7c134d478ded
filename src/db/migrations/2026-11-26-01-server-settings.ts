import type { Kysely } from 'kysely';
import type { MigrationFactory } from './migration.js';

/**
 * What a running server says of itself to the processes sharing its database (db/server-settings.ts): its
 * address (`url`), which `portal sessions create` puts into a session token's baseUrl.
 */
export const serverSettings: MigrationFactory = () => ({
  // biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not as typed today
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('server_settings')
      .addColumn('name', 'text', (c) => c.primaryKey())
      .addColumn('value', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
  },
});
