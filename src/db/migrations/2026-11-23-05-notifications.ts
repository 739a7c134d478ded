import type { Kysely } from 'kysely';
import type { MigrationFactory } from './migration.js';

/**
 * Notifications and the e-mail outbox. A notification's recipient is a client (`recipient_client_id`,
 * with the company it is sent in as `recipient_company_id`), an internal user, or a company as a whole
 * (`recipient_company_id` alone); it goes with its recipient (and its company). Its targets are JSON text. Each e-mail of a
 * notification is an `email_outbox` row written in the same transaction, sent after the commit: it
 * outlives the notification (deleting one from the notification center does not unsend its e-mail).
 */
export const notifications: MigrationFactory = () => ({
  // biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not as typed today
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('notifications')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('app_id', 'text', (c) => c.notNull())
      .addColumn('install_id', 'text', (c) => c.references('installs.id').onDelete('set null'))
      .addColumn('setting_id', 'text')
      .addColumn('sender_id', 'text', (c) => c.notNull())
      .addColumn('sender_type', 'text', (c) => c.notNull())
      .addColumn('sender_company_id', 'text')
      .addColumn('recipient_client_id', 'text', (c) => c.references('clients.id').onDelete('cascade'))
      .addColumn('recipient_internal_user_id', 'text', (c) => c.references('internal_users.id').onDelete('cascade'))
      .addColumn('recipient_company_id', 'text', (c) => c.references('companies.id').onDelete('cascade'))
      .addColumn('in_product', 'text')
      .addColumn('email', 'text')
      .addColumn('is_read', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    // One index per list shape: the whole workspace, and each recipient filter (contract §4 keyset).
    for (const [name, filter] of [
      ['notifications_page', []],
      ['notifications_client_page', ['recipient_client_id']],
      ['notifications_internal_user_page', ['recipient_internal_user_id']],
      ['notifications_company_page', ['recipient_company_id']],
    ] as const) {
      await db.schema
        .createIndex(name)
        .on('notifications')
        .columns(['workspace_id', ...filter, 'created_at', 'id'])
        .execute();
    }
    await db.schema
      .createTable('email_outbox')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('notification_id', 'text')
      .addColumn('to_address', 'text', (c) => c.notNull())
      .addColumn('subject', 'text', (c) => c.notNull())
      .addColumn('text_body', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('next_attempt_at', 'text', (c) => c.notNull())
      .addColumn('claimed_until', 'text')
      .addColumn('last_error', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('sent_at', 'text')
      .execute();
    await db.schema.createIndex('email_outbox_due').on('email_outbox').columns(['status', 'next_attempt_at']).execute();
    await db.schema.createIndex('email_outbox_page').on('email_outbox').columns(['workspace_id', 'created_at', 'id']).execute();
  },
});
