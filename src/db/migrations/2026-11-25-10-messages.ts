import type { Kysely } from 'kysely';
import type { MigrationFactory } from './migration.js';

/**
 * Message channels and messages. A channel is for one client (`individual`), clients of one company
 * (`group`) or a company as a whole (`company`); `message_channel_members` holds its clients (one row each),
 * so "the channels a client belongs to" is an indexed lookup, and `member_ids` is their ordered copy, read
 * with the row. A channel goes with its company and its clients; its messages go with it.
 */
export const messages: MigrationFactory = () => ({
  // biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not as typed today
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('message_channels')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('membership_type', 'text', (c) => c.notNull())
      .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id').onDelete('cascade'))
      .addColumn('client_id', 'text', (c) => c.references('clients.id').onDelete('cascade'))
      .addColumn('member_ids', 'text', (c) => c.notNull())
      .addColumn('last_message_date', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    // One index per list shape (contract §4 keyset): the whole workspace, and each filter that ranges.
    for (const [name, filter] of [
      ['message_channels_page', []],
      ['message_channels_type_page', ['membership_type']],
      ['message_channels_client_page', ['client_id']],
    ] as const) {
      await db.schema
        .createIndex(name)
        .on('message_channels')
        .columns(['workspace_id', ...filter, 'created_at', 'id'])
        .execute();
    }
    await db.schema
      .createTable('message_channel_members')
      .addColumn('channel_id', 'text', (c) => c.notNull().references('message_channels.id').onDelete('cascade'))
      .addColumn('client_id', 'text', (c) => c.notNull().references('clients.id').onDelete('cascade'))
      .addPrimaryKeyConstraint('message_channel_members_pk', ['channel_id', 'client_id'])
      .execute();
    await db.schema
      .createIndex('message_channel_members_client')
      .on('message_channel_members')
      .columns(['client_id', 'channel_id'])
      .execute();
    await db.schema
      .createTable('messages')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('channel_id', 'text', (c) => c.notNull().references('message_channels.id').onDelete('cascade'))
      .addColumn('sender_id', 'text', (c) => c.notNull())
      .addColumn('sender_type', 'text', (c) => c.notNull())
      .addColumn('text', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('messages_page').on('messages').columns(['workspace_id', 'channel_id', 'created_at', 'id']).execute();
  },
});
