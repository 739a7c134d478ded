import type { Kysely } from 'kysely';
import type { MigrationFactory } from './migration.js';

/**
 * Forms and form responses. A form carries its fields as JSON text (served with the form); a response goes
 * with its form, its client and its company. One index per list shape (contract §4 keyset): the workspace's
 * forms, and the responses of the workspace or of one form, each alone and by client and by status.
 */
export const forms: MigrationFactory = () => ({
  // biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not as typed today
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('forms')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('description', 'text', (c) => c.notNull())
      .addColumn('fields', 'text', (c) => c.notNull())
      .addColumn('allow_multiple_submissions', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('visibility', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('forms_page').on('forms').columns(['workspace_id', 'created_at', 'id']).execute();
    await db.schema
      .createTable('form_responses')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('form_id', 'text', (c) => c.notNull().references('forms.id').onDelete('cascade'))
      .addColumn('client_id', 'text', (c) => c.notNull().references('clients.id').onDelete('cascade'))
      .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id').onDelete('cascade'))
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('answers', 'text')
      .addColumn('once_key', 'text')
      .addColumn('requested_by', 'text', (c) => c.notNull())
      .addColumn('submitted_at', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    for (const [name, filter] of [
      ['form_responses_page', []],
      ['form_responses_client_page', ['client_id']],
      ['form_responses_status_page', ['status']],
      ['form_responses_form_page', ['form_id']],
      ['form_responses_form_client_page', ['form_id', 'client_id']],
      ['form_responses_form_status_page', ['form_id', 'status']],
    ] as const) {
      await db.schema
        .createIndex(name)
        .on('form_responses')
        .columns(['workspace_id', ...filter, 'created_at', 'id'])
        .execute();
    }
    // A form without multiple submissions is requested of a client once: its responses carry `form_id/client_id`
    // here (the others null, which never collide), so two requests at once cannot both write one.
    await db.schema.createIndex('form_responses_once_unique').on('form_responses').columns(['workspace_id', 'once_key']).unique().execute();
    // The cascades' lookups (a deleted client or company finds its responses by these).
    for (const column of ['client_id', 'company_id']) {
      await db.schema.createIndex(`form_responses_by_${column}`).on('form_responses').column(column).execute();
    }
  },
});
