import type { Kysely } from 'kysely';
import type { MigrationFactory } from './migration.js';

/**
 * Invoices, their payments and subscriptions. Invoice numbers come from `invoice_counters`, incremented
 * in the invoice's own transaction (a rolled-back invoice gives its number back: no gaps, and the row
 * lock orders concurrent creations: no duplicates). A subscription's period is billed once: a unique key
 * per subscription and period index, not a lock held in memory. Amounts (cents) and Unix seconds are
 * bigint: past 2^31 cents or 2038 (PostgreSQL answers them as text; the repositories read them as numbers).
 */
export const billing: MigrationFactory = () => ({
  // biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not as typed today
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('invoice_counters')
      .addColumn('workspace_id', 'text', (c) => c.primaryKey().references('workspaces.id').onDelete('cascade'))
      .addColumn('last_number', 'integer', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('subscriptions')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('client_id', 'text', (c) => c.references('clients.id').onDelete('set null'))
      .addColumn('company_id', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('terms', 'text', (c) => c.notNull())
      .addColumn('interval', 'text', (c) => c.notNull())
      .addColumn('interval_count', 'integer', (c) => c.notNull())
      .addColumn('collection_method', 'text', (c) => c.notNull())
      .addColumn('schedule_start', 'bigint', (c) => c.notNull())
      .addColumn('schedule_end', 'bigint')
      .addColumn('schedule_iterations', 'integer')
      .addColumn('periods_billed', 'integer', (c) => c.notNull())
      .addColumn('next_period_at', 'text')
      .addColumn('cancelled_at', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    for (const [name, filter] of [
      ['subscriptions_page', []],
      ['subscriptions_client_page', ['client_id']],
      ['subscriptions_company_page', ['company_id']],
    ] as const) {
      await db.schema
        .createIndex(name)
        .on('subscriptions')
        .columns(['workspace_id', ...filter, 'created_at', 'id'])
        .execute();
    }
    await db.schema.createIndex('subscriptions_due').on('subscriptions').columns(['status', 'next_period_at']).execute();
    await db.schema
      .createTable('invoices')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('number', 'integer', (c) => c.notNull())
      .addColumn('client_id', 'text', (c) => c.references('clients.id').onDelete('set null'))
      .addColumn('company_id', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('terms', 'text', (c) => c.notNull())
      .addColumn('subtotal', 'bigint', (c) => c.notNull())
      .addColumn('tax_amount', 'bigint', (c) => c.notNull())
      .addColumn('total', 'bigint', (c) => c.notNull())
      .addColumn('due_date', 'text', (c) => c.notNull())
      .addColumn('sent_date', 'text')
      .addColumn('billing_reason', 'text', (c) => c.notNull())
      .addColumn('collection_method', 'text', (c) => c.notNull())
      .addColumn('subscription_id', 'text', (c) => c.references('subscriptions.id').onDelete('set null'))
      .addColumn('period_index', 'integer')
      .addColumn('paid_at', 'text')
      .addColumn('voided_at', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('invoices_number_unique').on('invoices').columns(['workspace_id', 'number']).unique().execute();
    await db.schema.createIndex('invoices_period_unique').on('invoices').columns(['subscription_id', 'period_index']).unique().execute();
    for (const [name, filter] of [
      ['invoices_page', []],
      ['invoices_client_page', ['client_id']],
      ['invoices_company_page', ['company_id']],
      ['invoices_status_page', ['status']],
    ] as const) {
      await db.schema
        .createIndex(name)
        .on('invoices')
        .columns(['workspace_id', ...filter, 'created_at', 'id'])
        .execute();
    }
    await db.schema
      .createTable('payments')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('invoice_id', 'text', (c) => c.notNull().references('invoices.id').onDelete('cascade'))
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('amount', 'bigint', (c) => c.notNull())
      .addColumn('payment_method', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('payments_page').on('payments').columns(['workspace_id', 'created_at', 'id']).execute();
    await db.schema
      .createIndex('payments_invoice_page')
      .on('payments')
      .columns(['workspace_id', 'invoice_id', 'created_at', 'id'])
      .execute();
  },
});
