import type { Kysely } from 'kysely';
import type { MigrationFactory } from './migration.js';

/**
 * Notes on a client or a company: `client_id` or `company_id` as `entity_type` says, each a foreign key, so a
 * note goes with its client or company. One index per list shape of GET /v1/notes (contract §4 keyset).
 */
export const notes: MigrationFactory = () => ({
  // biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not as typed today
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('notes')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('entity_type', 'text', (c) => c.notNull())
      .addColumn('client_id', 'text', (c) => c.references('clients.id').onDelete('cascade'))
      .addColumn('company_id', 'text', (c) => c.references('companies.id').onDelete('cascade'))
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('content', 'text')
      .addColumn('creator_id', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    for (const [name, filter] of [
      ['notes_page', []],
      ['notes_entity_type_page', ['entity_type']],
      ['notes_client_page', ['client_id']],
      ['notes_company_page', ['company_id']],
    ] as const) {
      await db.schema
        .createIndex(name)
        .on('notes')
        .columns(['workspace_id', ...filter, 'created_at', 'id'])
        .execute();
    }
    for (const column of ['client_id', 'company_id']) {
      await db.schema.createIndex(`notes_by_${column}`).on('notes').column(column).execute();
    }
  },
});
