import { type Kysely, sql } from 'kysely';
import type { MigrationFactory } from './migration.js';

/**
 * An index for every list and filter, shaped `(workspace_id, <filter>, created_at, id)`, so that a page
 * after a cursor is a range of the index on both dialects (paging.ts). The clients of one company are
 * listed from `client_companies`, which therefore carries its client's `created_at`: back-filled here,
 * written with every membership. Old rows written by a process that predates this column get the
 * default '' (sorting last) until rewritten; every writer of this version sets it.
 */
export const pagingIndexes: MigrationFactory = () => ({
  // biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not as typed today
  async up(db: Kysely<any>) {
    await db.schema
      .alterTable('client_companies')
      .addColumn('client_created_at', 'text', (c) => c.notNull().defaultTo(''))
      .execute();
    await sql`update client_companies set client_created_at = (select clients.created_at from clients where clients.id = client_companies.client_id)`.execute(
      db,
    );
    const indexes: [name: string, table: string, columns: string[]][] = [
      ['clients_given_name_page', 'clients', ['workspace_id', 'given_name', 'created_at', 'id']],
      ['clients_family_name_page', 'clients', ['workspace_id', 'family_name', 'created_at', 'id']],
      ['client_companies_page', 'client_companies', ['workspace_id', 'company_id', 'client_created_at', 'client_id']],
      ['companies_name_page', 'companies', ['workspace_id', 'name', 'created_at', 'id']],
      ['companies_placeholder_page', 'companies', ['workspace_id', 'is_placeholder', 'created_at', 'id']],
      ['custom_fields_entity_page', 'custom_fields', ['workspace_id', 'entity_type', 'created_at', 'id']],
      ['custom_field_options_page', 'custom_field_options', ['workspace_id', 'custom_field_id', 'created_at', 'id']],
      ['custom_field_options_label_page', 'custom_field_options', ['workspace_id', 'custom_field_id', 'label', 'created_at', 'id']],
    ];
    for (const [name, table, columns] of indexes) await db.schema.createIndex(name).on(table).columns(columns).execute();
  },
});
