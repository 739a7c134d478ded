import type { Kysely } from 'kysely';
import { uuidV5 } from '../../lib/uuid-v5.js';
import type { MigrationFactory } from './migration.js';

/**
 * App installs. Every workspace has the core modules installed: existing workspaces get them here
 * (new ones when created). `sort_key` is `sort` as zero-padded text, the list's keyset (sidebar order).
 * Structured fields (embedly data, query params, visibility rules, notification config) are JSON text.
 */
/** As in modules/resources/installs/core-modules.ts. */
const CORE_APPS_NAMESPACE = '5c7e9a52-7d1b-4c55-9a43-6f1c0d2b8e10';

export const installs: MigrationFactory = () => ({
  // biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not as typed today
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('installs')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('display_name', 'text', (c) => c.notNull())
      .addColumn('icon', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('app_id', 'text')
      .addColumn('app_builder_id', 'text')
      .addColumn('content', 'text')
      .addColumn('embed_code', 'text')
      .addColumn('embed_link', 'text')
      .addColumn('embed_count', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('embedly_data', 'text')
      .addColumn('auto_size_embed', 'integer', (c) => c.notNull().defaultTo(1))
      .addColumn('is_authenticated', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('is_internal_app', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('is_root', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('iu_sidebar_hidden', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('path', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('query_params', 'text', (c) => c.notNull().defaultTo('[]'))
      .addColumn('sort', 'integer', (c) => c.notNull())
      .addColumn('sort_key', 'text', (c) => c.notNull())
      .addColumn('supports_expiring_tokens', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('visibility_config', 'text', (c) => c.notNull().defaultTo('[]'))
      .addColumn('disabled', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('notification_config', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('installs_page').on('installs').columns(['workspace_id', 'sort_key', 'id']).execute();
    const workspaces = await db.selectFrom('workspaces').select(['id', 'created_at']).execute();
    // The core modules as of this migration (a copy: a landed migration never changes with the code).
    const modules = ['messages', 'files', 'forms', 'contracts', 'billing', 'helpdesk', 'tasks'];
    for (const workspace of workspaces) {
      const rows = modules.map((module, sort) => ({
        id: uuidV5(module, workspace.id),
        workspace_id: workspace.id,
        type: 'core',
        status: 'published',
        display_name: module[0].toUpperCase() + module.slice(1),
        icon: module,
        app_id: uuidV5(module, CORE_APPS_NAMESPACE),
        path: module,
        sort,
        sort_key: String(sort).padStart(10, '0'),
        created_at: workspace.created_at,
        updated_at: workspace.created_at,
      }));
      await db.insertInto('installs').values(rows).execute();
    }
  },
});
