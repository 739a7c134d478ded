import type { Kysely } from 'kysely';
import type { MigrationFactory } from './migration.js';

/** Companies, clients (and their companies), internal users, custom fields, and the audit log. */
export const directory: MigrationFactory = () => ({
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('companies')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('name', 'text', (c) => c.notNull())
      // lower(name) for real companies, null for placeholders: names are unique per workspace, case-insensitively.
      .addColumn('name_key', 'text')
      .addColumn('fallback_color', 'text', (c) => c.notNull())
      .addColumn('icon_image_url', 'text')
      .addColumn('is_placeholder', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('custom_fields', 'text', (c) => c.notNull().defaultTo('{}'))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('companies_name_unique').on('companies').columns(['workspace_id', 'name_key']).unique().execute();
    await db.schema.createIndex('companies_page').on('companies').columns(['workspace_id', 'created_at', 'id']).execute();

    await db.schema
      .createTable('clients')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('email', 'text', (c) => c.notNull())
      .addColumn('email_key', 'text', (c) => c.notNull())
      .addColumn('given_name', 'text', (c) => c.notNull())
      .addColumn('family_name', 'text', (c) => c.notNull())
      .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id'))
      // Every company of the client, primary first, comma-separated: read with the row, no join.
      .addColumn('company_ids', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('creation_method', 'text', (c) => c.notNull())
      .addColumn('avatar_image_url', 'text')
      .addColumn('first_login_date', 'text')
      .addColumn('last_login_date', 'text')
      .addColumn('invited_by', 'text')
      .addColumn('invite_token_hash', 'text')
      .addColumn('custom_fields', 'text', (c) => c.notNull().defaultTo('{}'))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('clients_email_unique').on('clients').columns(['workspace_id', 'email_key']).unique().execute();
    await db.schema.createIndex('clients_page').on('clients').columns(['workspace_id', 'created_at', 'id']).execute();

    await db.schema
      .createTable('client_companies')
      .addColumn('workspace_id', 'text', (c) => c.notNull())
      .addColumn('client_id', 'text', (c) => c.notNull().references('clients.id').onDelete('cascade'))
      .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id').onDelete('cascade'))
      .addPrimaryKeyConstraint('client_companies_pk', ['client_id', 'company_id'])
      .execute();
    await db.schema.createIndex('client_companies_company').on('client_companies').columns(['company_id', 'client_id']).execute();

    await db.schema
      .createTable('internal_users')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('email', 'text', (c) => c.notNull())
      .addColumn('email_key', 'text', (c) => c.notNull())
      .addColumn('given_name', 'text', (c) => c.notNull())
      .addColumn('family_name', 'text', (c) => c.notNull())
      .addColumn('role', 'text', (c) => c.notNull())
      .addColumn('is_client_access_limited', 'integer', (c) => c.notNull().defaultTo(0))
      // Comma-separated company ids; empty when access is not limited.
      .addColumn('company_access_list', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('avatar_image_url', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('internal_users_email_unique')
      .on('internal_users')
      .columns(['workspace_id', 'email_key'])
      .unique()
      .execute();
    await db.schema.createIndex('internal_users_page').on('internal_users').columns(['workspace_id', 'created_at', 'id']).execute();

    await db.schema
      .createTable('custom_fields')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('entity_type', 'text', (c) => c.notNull())
      .addColumn('key', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('custom_fields_key_unique')
      .on('custom_fields')
      .columns(['workspace_id', 'entity_type', 'key'])
      .unique()
      .execute();
    await db.schema.createIndex('custom_fields_page').on('custom_fields').columns(['workspace_id', 'created_at', 'id']).execute();

    await db.schema
      .createTable('custom_field_options')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('workspace_id', 'text', (c) => c.notNull())
      .addColumn('custom_field_id', 'text', (c) => c.notNull().references('custom_fields.id').onDelete('cascade'))
      .addColumn('key', 'text', (c) => c.notNull())
      .addColumn('label', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('custom_field_options_key_unique')
      .on('custom_field_options')
      .columns(['custom_field_id', 'key'])
      .unique()
      .execute();

    await db.schema
      .createTable('audit_log')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('event_type', 'text', (c) => c.notNull())
      .addColumn('event_description', 'text', (c) => c.notNull())
      .addColumn('source', 'text', (c) => c.notNull())
      .addColumn('actor_id', 'text')
      .addColumn('actor_type', 'text')
      .addColumn('actor_role', 'text')
      .addColumn('api_key_ref', 'text')
      .addColumn('company_id', 'text')
      .addColumn('context', 'text', (c) => c.notNull().defaultTo('{}'))
      .addColumn('previous_attributes', 'text')
      .addColumn('ip', 'text')
      .addColumn('user_agent', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('audit_log_page').on('audit_log').columns(['workspace_id', 'created_at', 'id']).execute();
  },
});
