import type { Kysely } from 'kysely';
import type { MigrationFactory } from './migration.js';

/**
 * Console sessions ended by signing out (modules/surfaces/operator-sessions/operator-session.ts): the SHA-256 of the cookie until
 * the moment it would have expired anyway. In the database, so every replica refuses a signed-out cookie.
 */
export const consoleSessionRevocations: MigrationFactory = () => ({
  // biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not as typed today
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('console_session_revocations')
      .addColumn('session_hash', 'text', (c) => c.primaryKey())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('console_session_revocations_expiry').on('console_session_revocations').column('expires_at').execute();
  },
});
