import { type Kysely, sql } from 'kysely';
import type { MigrationFactory } from './migration.js';

/**
 * A draft invoice has no number: it takes the workspace's next one when it is finalised, so deleted drafts
 * leave no gaps. `number` becomes nullable the one way both dialects share (SQLite cannot drop NOT NULL):
 * a nullable copy replaces the column; the per-workspace unique index admits any number of nulls. Drafts
 * made before keep the number they took then.
 */
export const invoiceDrafts: MigrationFactory = () => ({
  // biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not as typed today
  async up(db: Kysely<any>) {
    await db.schema.dropIndex('invoices_number_unique').execute();
    await db.schema.alterTable('invoices').addColumn('issued_number', 'integer').execute();
    await sql`update invoices set issued_number = number`.execute(db);
    await db.schema.alterTable('invoices').dropColumn('number').execute();
    await db.schema.alterTable('invoices').renameColumn('issued_number', 'number').execute();
    await db.schema.createIndex('invoices_number_unique').on('invoices').columns(['workspace_id', 'number']).unique().execute();
  },
});
