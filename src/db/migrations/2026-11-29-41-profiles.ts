import { type Kysely, sql } from 'kysely';
import type { MigrationFactory } from './migration.js';

/**
 * Issue 44 (point 1): a person's own profile on the portal's account page. Whether notifications are e-mailed to a
 * client or an internal user is a column of its own row (`email_notifications`, 1 until it says otherwise; its module
 * writes it). A picture it uploads is kept here, bytes and all, as the sign-in module's other rows of a person are: one
 * per person, by a foreign key that cascades, so removing the person removes its picture in the same statement; the
 * person's `avatar_image_url` names it by its content's SHA-256 (a new picture, a new URL; the old one a 404). Bytes are
 * a BLOB on SQLite and a bytea on PostgreSQL (at most 512 KiB: lib/images.ts).
 */
export const profiles: MigrationFactory = (dialect) => ({
  // biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not as typed today
  async up(db: Kysely<any>) {
    for (const table of ['clients', 'internal_users']) {
      await db.schema
        .alterTable(table)
        .addColumn('email_notifications', 'integer', (c) => c.notNull().defaultTo(1))
        .execute();
    }
    await db.schema
      .createTable('avatars')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('client_id', 'text', (c) => c.references('clients.id').onDelete('cascade'))
      .addColumn('internal_user_id', 'text', (c) => c.references('internal_users.id').onDelete('cascade'))
      // SHA-256 of the bytes, hex: the last segment of the picture's URL
      .addColumn('content_hash', 'text', (c) => c.notNull())
      // sniffed from the bytes (image/png, image/jpeg, image/webp or image/gif), never the uploader's word
      .addColumn('content_type', 'text', (c) => c.notNull())
      .addColumn('byte_size', 'integer', (c) => c.notNull())
      .addColumn('bytes', dialect === 'postgres' ? 'bytea' : 'blob', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addCheckConstraint('avatars_one_person', sql`(client_id is null) <> (internal_user_id is null)`)
      .execute();
    await db.schema.createIndex('avatars_client').on('avatars').columns(['client_id']).unique().execute();
    await db.schema.createIndex('avatars_internal_user').on('avatars').columns(['internal_user_id']).unique().execute();
  },
});
