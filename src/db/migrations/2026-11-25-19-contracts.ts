import type { Kysely } from 'kysely';
import type { MigrationFactory } from './migration.js';

/**
 * Contract templates and contracts. A template carries its fields as JSON text; a contract keeps the fields
 * as sent (and as signed), and goes with its template, its client and its company. One index per list shape
 * (contract §4 keyset): templates, alone and by name; contracts, alone and by each filter of GET /v1/contracts.
 */
export const contracts: MigrationFactory = () => ({
  // biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not as typed today
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('contract_templates')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('fields', 'text', (c) => c.notNull())
      .addColumn('file_url', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    for (const [name, filter] of [
      ['contract_templates_page', []],
      ['contract_templates_name_page', ['name']],
    ] as const) {
      await db.schema
        .createIndex(name)
        .on('contract_templates')
        .columns(['workspace_id', ...filter, 'created_at', 'id'])
        .execute();
    }
    await db.schema
      .createTable('contracts')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('contract_template_id', 'text', (c) => c.notNull().references('contract_templates.id').onDelete('cascade'))
      .addColumn('client_id', 'text', (c) => c.notNull().references('clients.id').onDelete('cascade'))
      .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id').onDelete('cascade'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('fields', 'text', (c) => c.notNull())
      .addColumn('file_url', 'text')
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('sent_by', 'text', (c) => c.notNull())
      .addColumn('submitted_at', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    for (const [name, filter] of [
      ['contracts_page', []],
      ['contracts_template_page', ['contract_template_id']],
      ['contracts_client_page', ['client_id']],
      ['contracts_status_page', ['status']],
    ] as const) {
      await db.schema
        .createIndex(name)
        .on('contracts')
        .columns(['workspace_id', ...filter, 'created_at', 'id'])
        .execute();
    }
    // The cascades' lookups (a deleted client or company finds its contracts by these).
    for (const column of ['client_id', 'company_id']) {
      await db.schema.createIndex(`contracts_by_${column}`).on('contracts').column(column).execute();
    }
  },
});
