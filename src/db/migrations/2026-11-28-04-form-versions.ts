import { type Kysely, sql } from 'kysely';
import type { MigrationFactory } from './migration.js';

/**
 * Forms are edited: each edit of a form's name, description or fields is a new version, kept whole in
 * `form_versions` (the form's row keeps its newest version, as before, and the number in `version`). A
 * response records the version it was answered on (`form_responses.form_version`) and is read with that
 * version's questions. Every form that exists gets its version 1, a copy of what it holds, and every response
 * points at it (the columns' default): existing responses read exactly as before.
 */
export const formVersions: MigrationFactory = () => ({
  // biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not as typed today
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('form_versions')
      .addColumn('form_id', 'text', (c) => c.notNull().references('forms.id').onDelete('cascade'))
      .addColumn('version', 'integer', (c) => c.notNull())
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('description', 'text', (c) => c.notNull())
      .addColumn('fields', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('form_versions_pk', ['form_id', 'version'])
      .execute();
    await db.schema
      .alterTable('forms')
      .addColumn('version', 'integer', (c) => c.notNull().defaultTo(1))
      .execute();
    await db.schema
      .alterTable('form_responses')
      .addColumn('form_version', 'integer', (c) => c.notNull().defaultTo(1))
      .execute();
    await sql`insert into form_versions (form_id, version, workspace_id, name, description, fields, created_at)
      select id, 1, workspace_id, name, description, fields, created_at from forms`.execute(db);
  },
});
