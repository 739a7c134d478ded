import type { Kysely } from 'kysely';
import type { MigrationFactory } from './migration.js';

/**
 * An internal user's choices per notification setting of an install. A surface left null follows the
 * setting's `default`; no row at all is "default" (isDefault).
 */
export const notificationPreferences: MigrationFactory = () => ({
  // biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not as typed today
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('notification_preferences')
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('internal_user_id', 'text', (c) => c.notNull().references('internal_users.id').onDelete('cascade'))
      .addColumn('install_id', 'text', (c) => c.notNull().references('installs.id').onDelete('cascade'))
      .addColumn('setting_id', 'text', (c) => c.notNull())
      .addColumn('email', 'integer')
      .addColumn('product', 'integer')
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('notification_preferences_pk', ['internal_user_id', 'install_id', 'setting_id'])
      .execute();
  },
});
