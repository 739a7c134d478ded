import type { Kysely } from 'kysely';
import type { MigrationFactory } from './migration.js';

/** The in-process limit store's daily quota counts, so that a restart keeps them. */
export const limits: MigrationFactory = () => ({
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('quota_usage')
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('day', 'text', (c) => c.notNull())
      .addColumn('used', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('quota_usage_pk', ['workspace_id', 'day'])
      .execute();
  },
});
