import type { Kysely } from 'kysely';
import type { MigrationFactory } from './migration.js';

/**
 * Stored `Idempotency-Key` answers are scoped by the credential that made them (key, bearer token, or a
 * session's end user) and sealed with that credential's secret, instead of per workspace and in clear
 * (where one principal's retry could replay another's answer: a bearer token, an invite link). The
 * table is made anew: the answers kept so far are unscoped and in clear, so they are dropped rather than
 * carried over (they last 24 hours; a retry of a request made before the upgrade runs afresh).
 */
export const idempotencyScope: MigrationFactory = () => ({
  // biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not as typed today
  async up(db: Kysely<any>) {
    await db.schema.dropTable('idempotency_keys').execute();
    await db.schema
      .createTable('idempotency_keys')
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      // lib/caller.ts idempotencyScopeOf: whose answers these are
      .addColumn('scope', 'text', (c) => c.notNull())
      .addColumn('key', 'text', (c) => c.notNull())
      .addColumn('fingerprint', 'text', (c) => c.notNull())
      // null while the first request runs
      .addColumn('status_code', 'integer')
      // the body, sealed (AES-256-GCM) under a key derived from the caller's credential secret
      .addColumn('sealed_body', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('idempotency_keys_pk', ['workspace_id', 'scope', 'key'])
      .execute();
    await db.schema.createIndex('idempotency_keys_expiry').on('idempotency_keys').column('created_at').execute();
  },
});
