import type { Kysely } from 'kysely';
import type { MigrationFactory } from './migration.js';

/**
 * The catalog: products, their prices, invoice and subscription templates. Amounts are integer cents
 * (bigint, as billing's amounts are); a template's tax percentage and its lines (decimal quantities)
 * are text, so they come back exactly as given. One index per list shape (contract §4 keyset): the whole
 * workspace, products by name (lower-cased) and prices by product.
 */
export const catalog: MigrationFactory = () => ({
  // biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not as typed today
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('products')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('name_key', 'text', (c) => c.notNull())
      .addColumn('description', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('image_urls', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('prices')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('product_id', 'text', (c) => c.notNull().references('products.id').onDelete('cascade'))
      .addColumn('amount', 'bigint', (c) => c.notNull())
      .addColumn('currency', 'text', (c) => c.notNull())
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('interval', 'text')
      .addColumn('interval_count', 'integer')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    for (const table of ['invoice_templates', 'subscription_templates']) {
      let create = db.schema
        .createTable(table)
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('memo', 'text', (c) => c.notNull())
        .addColumn('tax_percentage', 'text', (c) => c.notNull())
        .addColumn('currency', 'text', (c) => c.notNull())
        .addColumn('line_items', 'text', (c) => c.notNull());
      if (table === 'subscription_templates') {
        create = create.addColumn('interval', 'text', (c) => c.notNull()).addColumn('interval_count', 'integer', (c) => c.notNull());
      }
      await create
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
    }
    for (const [name, table, filter] of [
      ['products_page', 'products', []],
      ['products_name_page', 'products', ['name_key']],
      ['prices_page', 'prices', []],
      ['prices_product_page', 'prices', ['product_id']],
      ['invoice_templates_page', 'invoice_templates', []],
      ['subscription_templates_page', 'subscription_templates', []],
    ] as const) {
      await db.schema
        .createIndex(name)
        .on(table)
        .columns(['workspace_id', ...filter, 'created_at', 'id'])
        .execute();
    }
  },
});
