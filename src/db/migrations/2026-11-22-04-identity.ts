import type { Kysely } from 'kysely';
import type { MigrationFactory } from './migration.js';

/**
 * Bearer tokens (POST /v1/token: only the SHA-256 of the token is stored) and end-user sessions
 * (the `tokenId` of a session token → the principal it names). Both die with their API key; the end
 * user of a session is checked on every request instead of by a foreign key, so deleting a client
 * never fails on its sessions.
 */
export const identity: MigrationFactory = () => ({
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('bearer_tokens')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('api_key_id', 'text', (c) => c.notNull().references('api_keys.id').onDelete('cascade'))
      .addColumn('token_hash', 'text', (c) => c.notNull().unique())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('bearer_tokens_key_expiry').on('bearer_tokens').columns(['api_key_id', 'expires_at']).execute();

    await db.schema
      .createTable('sessions')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('api_key_id', 'text', (c) => c.notNull().references('api_keys.id').onDelete('cascade'))
      .addColumn('internal_user_id', 'text')
      .addColumn('client_id', 'text')
      .addColumn('company_id', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .addColumn('revoked_at', 'text')
      .execute();
    await db.schema.createIndex('sessions_key_expiry').on('sessions').columns(['api_key_id', 'expires_at']).execute();
  },
});
