import type { Kysely } from 'kysely';
import type { MigrationFactory } from './migration.js';

/**
 * File channels and their files, folders and links. A channel is for one client (`individual`), clients of
 * one company (`group`) or a company (`company`), as message channels are; `file_channel_members` holds its
 * clients, one row each. `root_client_permissions` is what clients may do at the channel's root. A file
 * object is named by its `path` inside the channel (unique there); a file's content lives in the file store
 * under `storage_key` (never derived from the name) once its upload completed. A channel goes with its
 * company and its clients; its file objects go with it.
 */
export const files: MigrationFactory = () => ({
  // biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not as typed today
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('file_channels')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('membership_type', 'text', (c) => c.notNull())
      .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id').onDelete('cascade'))
      .addColumn('client_id', 'text', (c) => c.references('clients.id').onDelete('cascade'))
      .addColumn('member_ids', 'text', (c) => c.notNull())
      .addColumn('root_client_permissions', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    for (const [name, filter] of [
      ['file_channels_page', []],
      ['file_channels_type_page', ['membership_type']],
      ['file_channels_client_page', ['client_id']],
      ['file_channels_company_page', ['company_id']],
    ] as const) {
      await db.schema
        .createIndex(name)
        .on('file_channels')
        .columns(['workspace_id', ...filter, 'created_at', 'id'])
        .execute();
    }
    await db.schema
      .createTable('file_channel_members')
      .addColumn('channel_id', 'text', (c) => c.notNull().references('file_channels.id').onDelete('cascade'))
      .addColumn('client_id', 'text', (c) => c.notNull().references('clients.id').onDelete('cascade'))
      .addPrimaryKeyConstraint('file_channel_members_pk', ['channel_id', 'client_id'])
      .execute();
    await db.schema.createIndex('file_channel_members_client').on('file_channel_members').columns(['client_id', 'channel_id']).execute();
    await db.schema
      .createTable('files')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('channel_id', 'text', (c) => c.notNull().references('file_channels.id').onDelete('cascade'))
      .addColumn('object', 'text', (c) => c.notNull())
      .addColumn('path', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('link_url', 'text')
      .addColumn('client_permissions', 'text')
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('size', 'integer')
      .addColumn('content_type', 'text')
      .addColumn('storage_key', 'text')
      .addColumn('creator_id', 'text')
      .addColumn('modified_by_id', 'text')
      .addColumn('modified_by_object', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addUniqueConstraint('files_channel_path', ['channel_id', 'path'])
      .execute();
    await db.schema.createIndex('files_page').on('files').columns(['workspace_id', 'channel_id', 'created_at', 'id']).execute();
  },
});
