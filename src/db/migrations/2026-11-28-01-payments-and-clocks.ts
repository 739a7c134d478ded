import type { Kysely } from 'kysely';
import type { MigrationFactory } from './migration.js';

/**
 * Payments that can fail and refunds (a payment processor behind an interface; the built-in one is a sandbox
 * that behaves like a processor's test mode), and test clocks for sandbox workspaces: a sandbox's time is the
 * server's plus `clock_offset_ms`, which only grows. Cards are kept as the processor's token with their brand,
 * last four digits and expiry, never their number.
 */
export const paymentsAndClocks: MigrationFactory = () => ({
  // biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not as typed today
  async up(db: Kysely<any>) {
    await db.schema
      .alterTable('workspaces')
      .addColumn('sandbox', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema
      .alterTable('workspaces')
      .addColumn('clock_offset_ms', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();

    await db.schema
      .createTable('payment_methods')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('client_id', 'text', (c) => c.references('clients.id').onDelete('cascade'))
      .addColumn('company_id', 'text', (c) => c.notNull())
      .addColumn('brand', 'text', (c) => c.notNull())
      .addColumn('last4', 'text', (c) => c.notNull())
      .addColumn('exp_month', 'integer', (c) => c.notNull())
      .addColumn('exp_year', 'integer', (c) => c.notNull())
      .addColumn('processor_token', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('payment_methods_page')
      .on('payment_methods')
      .columns(['workspace_id', 'company_id', 'created_at', 'id'])
      .execute();

    for (const [column, type] of [
      ['payment_method_id', 'text'],
      ['brand', 'text'],
      ['last4', 'text'],
      ['message', 'text'],
      ['decline_code', 'text'],
      ['processor_ref', 'text'],
    ] as const) {
      await db.schema.alterTable('payments').addColumn(column, type).execute();
    }
    await db.schema
      .alterTable('payments')
      .addColumn('amount_refunded', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();

    await db.schema
      .alterTable('invoices')
      .addColumn('amount_refunded', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema
      .alterTable('invoices')
      .addColumn('attempt_count', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema.alterTable('invoices').addColumn('next_payment_attempt_at', 'text').execute();
    await db.schema.createIndex('invoices_payment_due').on('invoices').columns(['next_payment_attempt_at']).execute();

    await db.schema
      .createTable('refunds')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('payment_id', 'text', (c) => c.notNull().references('payments.id').onDelete('cascade'))
      .addColumn('invoice_id', 'text', (c) => c.notNull().references('invoices.id').onDelete('cascade'))
      .addColumn('company_id', 'text', (c) => c.notNull())
      .addColumn('amount', 'bigint', (c) => c.notNull())
      .addColumn('currency', 'text', (c) => c.notNull())
      .addColumn('reason', 'text')
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('failure_message', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('refunds_page').on('refunds').columns(['workspace_id', 'created_at', 'id']).execute();
    await db.schema.createIndex('refunds_payment_page').on('refunds').columns(['workspace_id', 'payment_id', 'created_at', 'id']).execute();
  },
});
