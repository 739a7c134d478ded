import { type Kysely, sql } from 'kysely';
import type { MigrationFactory } from './migration.js';

/**
 * Invoice and contract documents (PDFs, modules/resources/billing/invoice-pdf.ts and modules/resources/contracts/contract-pdf.ts):
 * the workspace's brand colour they are drawn in (null: one derived from the workspace's id), and a small
 * partial index to read one contract's audit trail (its entries only, so other writes to the log pay nothing).
 */
export const documents: MigrationFactory = () => ({
  // biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not as typed today
  async up(db: Kysely<any>) {
    await db.schema.alterTable('workspaces').addColumn('brand_color', 'text').execute();
    await db.schema
      .createIndex('audit_log_contract_trail')
      .on('audit_log')
      .columns(['workspace_id', 'ref', 'created_at', 'id'])
      .where(sql.ref('object_type'), '=', 'contract')
      .execute();
  },
});
