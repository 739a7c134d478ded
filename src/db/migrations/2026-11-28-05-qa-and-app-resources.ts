import type { Kysely } from 'kysely';
import type { MigrationFactory } from './migration.js';

/**
 * QA principals (modules/surfaces/qa): a client or an internal user marked for testing, its id the person's; the mark goes
 * with the person (foreign keys, on delete cascade). App API resources and app builder secrets (modules/resources/app-api):
 * what an app declares its API exposes, and the secret its builder signs with (sealed, SecretBox), per workspace and app.
 */
export const qaAndAppResources: MigrationFactory = () => ({
  // biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not as typed today
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('qa_principals')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('client_id', 'text', (c) => c.references('clients.id').onDelete('cascade'))
      .addColumn('internal_user_id', 'text', (c) => c.references('internal_users.id').onDelete('cascade'))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('qa_principals_page').on('qa_principals').columns(['workspace_id', 'created_at', 'id']).execute();

    await db.schema
      .createTable('app_api_resources')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('app_id', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('description', 'text')
      .addColumn('methods', 'text', (c) => c.notNull())
      .addColumn('path', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addUniqueConstraint('app_api_resources_name_unique', ['workspace_id', 'app_id', 'name'])
      .execute();
    await db.schema
      .createIndex('app_api_resources_page')
      .on('app_api_resources')
      .columns(['workspace_id', 'app_id', 'created_at', 'id'])
      .execute();

    await db.schema
      .createTable('app_builder_secrets')
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('app_id', 'text', (c) => c.notNull())
      .addColumn('sealed_secret', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('app_builder_secrets_pkey', ['workspace_id', 'app_id'])
      .execute();
  },
});
