import { type Kysely, sql } from 'kysely';
import type { MigrationFactory } from './migration.js';

/**
 * The billing worker finishes refunds whose request died between its two transactions (modules/resources/billing:
 * settleStaleRefund): a partial index of the pending ones, so its poll reads only those (none, mostly).
 */
export const pendingRefunds: MigrationFactory = () => ({
  // biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not as typed today
  async up(db: Kysely<any>) {
    await db.schema.createIndex('refunds_pending').on('refunds').columns(['updated_at']).where(sql.ref('status'), '=', 'pending').execute();
  },
});
