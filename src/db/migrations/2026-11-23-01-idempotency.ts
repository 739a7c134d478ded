import type { Kysely } from 'kysely';
import type { MigrationFactory } from './migration.js';

/**
 * `Idempotency-Key` on POST (plugins/idempotency.ts): per workspace and key, the request's fingerprint
 * and, once answered, its status and body, kept 24 hours. In the database so every process agrees.
 */
export const idempotency: MigrationFactory = () => ({
  // biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not as typed today
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('idempotency_keys')
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('key', 'text', (c) => c.notNull())
      .addColumn('fingerprint', 'text', (c) => c.notNull())
      // null while the first request runs
      .addColumn('status_code', 'integer')
      .addColumn('response_body', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('idempotency_keys_pk', ['workspace_id', 'key'])
      .execute();
    await db.schema.createIndex('idempotency_keys_expiry').on('idempotency_keys').column('created_at').execute();
  },
});
