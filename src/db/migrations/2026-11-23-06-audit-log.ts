import { type Kysely, sql } from 'kysely';
import type { MigrationFactory } from './migration.js';

/**
 * The audit log as an API: the specification's internal fields (agent, automation, super-admin), the
 * object an entry is about (`object_type`, `ref`, `data`: its state after the change, the webhook's
 * payload), `scope_company_id` (the company it concerns: what a limited internal user may read),
 * `webhook_pending` (1 until the dispatcher has fanned it out to the webhook endpoints: the audit log
 * is the webhooks' transactional outbox; entries older than this migration are not sent), one index per
 * list filter, and `audit_sessions` (each actor's open session, for sessionStarted/sessionEnded).
 */
export const auditLog: MigrationFactory = () => ({
  // biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not as typed today
  async up(db: Kysely<any>) {
    for (const [column, type] of [
      ['actor_agent_id', 'text'],
      ['automation_id', 'text'],
      ['object_type', 'text'],
      ['ref', 'text'],
      ['data', 'text'],
      ['scope_company_id', 'text'],
    ] as const) {
      await db.schema.alterTable('audit_log').addColumn(column, type).execute();
    }
    await db.schema
      .alterTable('audit_log')
      .addColumn('is_super_admin_triggered', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema
      .alterTable('audit_log')
      .addColumn('webhook_pending', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    // Older entries are scoped by their client actor's company only (their subject was not recorded).
    await db
      .updateTable('audit_log')
      .set({ scope_company_id: sql.ref('company_id') })
      .execute();
    for (const [name, filter] of [
      ['audit_log_event_page', 'event_type'],
      ['audit_log_actor_page', 'actor_id'],
      ['audit_log_company_page', 'company_id'],
      ['audit_log_scope_page', 'scope_company_id'],
    ] as const) {
      await db.schema.createIndex(name).on('audit_log').columns(['workspace_id', filter, 'created_at', 'id']).execute();
    }
    // Small partial indexes: the entries still to dispatch, and those still holding personal data.
    await db.schema
      .createIndex('audit_log_webhook_pending')
      .on('audit_log')
      .columns(['created_at', 'id'])
      .where(sql.ref('webhook_pending'), '=', 1)
      .execute();
    await db.schema
      .createIndex('audit_log_personal_data')
      .on('audit_log')
      .column('created_at')
      .where(sql<boolean>`ip is not null or user_agent is not null`)
      .execute();
    await db.schema
      .createTable('audit_sessions')
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('actor_id', 'text', (c) => c.notNull())
      .addColumn('started_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('audit_sessions_pk', ['workspace_id', 'actor_id'])
      .execute();
  },
});
