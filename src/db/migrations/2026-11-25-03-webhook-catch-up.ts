import type { Kysely } from 'kysely';
import type { MigrationFactory } from './migration.js';

/**
 * `webhook_endpoints.caught_up`: 0 until the webhook worker has fanned out to a new endpoint the entries
 * written in its first seconds without a webhook flag (by processes that did not know of it yet: see
 * modules/resources/webhooks/endpoint-workspaces.ts). The endpoints of before this migration have nothing to catch up.
 */
export const webhookCatchUp: MigrationFactory = () => ({
  // biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not as typed today
  async up(db: Kysely<any>) {
    await db.schema
      .alterTable('webhook_endpoints')
      .addColumn('caught_up', 'integer', (c) => c.notNull().defaultTo(1))
      .execute();
  },
});
