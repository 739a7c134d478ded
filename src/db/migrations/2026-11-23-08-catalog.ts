import type { Kysely } from 'kysely';
import type { MigrationFactory } from './migration.js';

/** The catalog: products, prices, invoice and subscription templates (placeholder). */
export const catalog: MigrationFactory = () => ({
  // biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not as typed today
  async up(_db: Kysely<any>) {},
});
