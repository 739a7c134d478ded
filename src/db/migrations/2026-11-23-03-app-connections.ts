import type { Kysely } from 'kysely';
import type { MigrationFactory } from './migration.js';

/**
 * App connections of manual installs. `app_connection_members` holds a connection's clients (one row
 * each), so "the connections a client sees" is an indexed lookup; `client_ids` is their ordered copy,
 * read with the row.
 */
export const appConnections: MigrationFactory = () => ({
  // biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not as typed today
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('app_connections')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('install_id', 'text', (c) => c.notNull().references('installs.id').onDelete('cascade'))
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('membership_type', 'text', (c) => c.notNull())
      .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id').onDelete('cascade'))
      .addColumn('client_ids', 'text', (c) => c.notNull())
      .addColumn('content', 'text', (c) => c.notNull())
      .addColumn('auto_size_embed', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('app_connections_page')
      .on('app_connections')
      .columns(['workspace_id', 'install_id', 'created_at', 'id'])
      .execute();
    await db.schema
      .createIndex('app_connections_company_page')
      .on('app_connections')
      .columns(['workspace_id', 'install_id', 'company_id', 'created_at', 'id'])
      .execute();
    await db.schema
      .createTable('app_connection_members')
      .addColumn('connection_id', 'text', (c) => c.notNull().references('app_connections.id').onDelete('cascade'))
      .addColumn('client_id', 'text', (c) => c.notNull().references('clients.id').onDelete('cascade'))
      .addPrimaryKeyConstraint('app_connection_members_pk', ['connection_id', 'client_id'])
      .execute();
    await db.schema
      .createIndex('app_connection_members_client')
      .on('app_connection_members')
      .columns(['client_id', 'connection_id'])
      .execute();
  },
});
