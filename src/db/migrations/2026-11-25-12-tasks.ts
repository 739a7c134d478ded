import type { Kysely } from 'kysely';
import type { MigrationFactory } from './migration.js';

/**
 * Tasks and task templates. A task goes with its assignee (client, company or internal user) and with its
 * parent task; a viewer's deletion only removes the viewer. Templates carry their subtask templates as JSON
 * text (served with the template, never listed alone). One index per list shape: the workspace's page, and
 * one per filter of GET /v1/tasks (contract §4 keyset).
 */
export const tasks: MigrationFactory = () => ({
  // biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not as typed today
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('task_templates')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('description', 'text', (c) => c.notNull())
      .addColumn('sub_task_templates', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('task_templates_page').on('task_templates').columns(['workspace_id', 'created_at', 'id']).execute();
    await db.schema
      .createTable('tasks')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('description', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('parent_task_id', 'text', (c) => c.references('tasks.id').onDelete('cascade'))
      .addColumn('template_id', 'text', (c) => c.references('task_templates.id').onDelete('set null'))
      .addColumn('internal_user_id', 'text', (c) => c.references('internal_users.id').onDelete('cascade'))
      .addColumn('client_id', 'text', (c) => c.references('clients.id').onDelete('cascade'))
      .addColumn('company_id', 'text', (c) => c.references('companies.id').onDelete('cascade'))
      .addColumn('viewer_client_id', 'text', (c) => c.references('clients.id').onDelete('set null'))
      .addColumn('viewer_company_id', 'text', (c) => c.references('companies.id').onDelete('set null'))
      .addColumn('due_date', 'text')
      .addColumn('created_by', 'text', (c) => c.notNull())
      .addColumn('creator_type', 'text', (c) => c.notNull())
      .addColumn('source', 'text', (c) => c.notNull())
      .addColumn('is_archived', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('archived_by', 'text')
      .addColumn('archived_at', 'text')
      .addColumn('completed_by', 'text')
      .addColumn('completed_by_type', 'text')
      .addColumn('completed_at', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    for (const [name, filter] of [
      ['tasks_page', []],
      ['tasks_status_page', ['status']],
      ['tasks_created_by_page', ['created_by']],
      ['tasks_parent_page', ['parent_task_id']],
      ['tasks_client_page', ['client_id']],
      ['tasks_internal_user_page', ['internal_user_id']],
      ['tasks_company_page', ['company_id']],
    ] as const) {
      await db.schema
        .createIndex(name)
        .on('tasks')
        .columns(['workspace_id', ...filter, 'created_at', 'id'])
        .execute();
    }
    // The cascades' lookups (a deleted parent, client, company or internal user finds its tasks by these).
    for (const column of ['parent_task_id', 'client_id', 'company_id', 'internal_user_id', 'viewer_client_id', 'viewer_company_id']) {
      await db.schema.createIndex(`tasks_by_${column}`).on('tasks').column(column).execute();
    }
  },
});
