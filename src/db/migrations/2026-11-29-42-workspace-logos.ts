import type { Kysely } from 'kysely';
import type { MigrationFactory } from './migration.js';

/**
 * Issue 44 (point 1): a workspace's logo, set by the operator (`PUT /admin/workspaces/{id}/logo`), shown in its portal's
 * bar, its e-mails and its documents. One row per workspace at most, the image's bytes kept whole in the database (at
 * most lib/images.ts MAX_IMAGE_BYTES, so backups hold it and every process serves it), with the SHA-256 of the bytes
 * that names it in its public URL (a new logo is a new URL: the old one may be cached for good). It goes with its
 * workspace.
 */
export const workspaceLogos: MigrationFactory = (dialect) => ({
  // biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not as typed today
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('workspace_logos')
      .addColumn('workspace_id', 'text', (c) => c.primaryKey().references('workspaces.id').onDelete('cascade'))
      .addColumn('hash', 'text', (c) => c.notNull())
      .addColumn('content_type', 'text', (c) => c.notNull())
      .addColumn('width', 'integer', (c) => c.notNull())
      .addColumn('height', 'integer', (c) => c.notNull())
      .addColumn('bytes', dialect === 'postgres' ? 'bytea' : 'blob', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
  },
});
