import { type Kysely, sql } from 'kysely';
import type { MigrationFactory } from './migration.js';

/**
 * People signing in (modules/surfaces/sign-in): each row belongs to exactly one client or one internal user, by a
 * foreign key that cascades, so removing the person removes its sessions, one-time links, credentials and
 * linked identities in the same statement, on every process at once. Secrets are stored as hashes
 * (SHA-256 of high-entropy tokens, Argon2id of passwords); the TOTP secret is the one value that must be
 * read back to check a code.
 */
export const signIn: MigrationFactory = () => ({
  // biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not as typed today
  async up(db: Kysely<any>) {
    const person = (table: string) =>
      db.schema
        .createTable(table)
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
        .addColumn('client_id', 'text', (c) => c.references('clients.id').onDelete('cascade'))
        .addColumn('internal_user_id', 'text', (c) => c.references('internal_users.id').onDelete('cascade'))
        .addCheckConstraint(`${table}_one_person`, sql`(client_id is null) <> (internal_user_id is null)`);

    await person('sign_in_sessions')
      .addColumn('token_hash', 'text', (c) => c.notNull().unique())
      .addColumn('method', 'text', (c) => c.notNull())
      // 'active', or 'mfa': the first factor passed, the TOTP step not yet (such a session reaches nothing else)
      .addColumn('stage', 'text', (c) => c.notNull())
      .addColumn('ip', 'text')
      .addColumn('user_agent', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('last_seen_at', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .addColumn('revoked_at', 'text')
      .execute();
    await db.schema.createIndex('sign_in_sessions_client').on('sign_in_sessions').columns(['client_id']).execute();
    await db.schema.createIndex('sign_in_sessions_internal_user').on('sign_in_sessions').columns(['internal_user_id']).execute();

    // Magic links and password resets: single use, short-lived; `purpose` keeps a sign-in link from ever setting a password.
    await person('sign_in_links')
      .addColumn('token_hash', 'text', (c) => c.notNull().unique())
      .addColumn('purpose', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .addColumn('used_at', 'text')
      .execute();
    await db.schema.createIndex('sign_in_links_client').on('sign_in_links').columns(['client_id']).execute();
    await db.schema.createIndex('sign_in_links_internal_user').on('sign_in_links').columns(['internal_user_id']).execute();

    await person('sign_in_credentials')
      .addColumn('password_hash', 'text')
      .addColumn('password_changed_at', 'text')
      .addColumn('totp_secret', 'text')
      .addColumn('totp_enabled_at', 'text')
      .addColumn('totp_last_step', 'integer')
      // JSON array of SHA-256 hashes of the unused recovery codes
      .addColumn('recovery_code_hashes', 'text')
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('sign_in_credentials_client').on('sign_in_credentials').columns(['client_id']).unique().execute();
    await db.schema
      .createIndex('sign_in_credentials_internal_user')
      .on('sign_in_credentials')
      .columns(['internal_user_id'])
      .unique()
      .execute();

    // Identities at OpenID providers: one per person and provider, one person per provider subject.
    await person('sign_in_identities')
      .addColumn('provider', 'text', (c) => c.notNull())
      .addColumn('subject', 'text', (c) => c.notNull())
      .addColumn('email', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('sign_in_identities_subject')
      .on('sign_in_identities')
      .columns(['workspace_id', 'provider', 'subject'])
      .unique()
      .execute();
    await db.schema.createIndex('sign_in_identities_client').on('sign_in_identities').columns(['client_id', 'provider']).unique().execute();
    await db.schema
      .createIndex('sign_in_identities_internal_user')
      .on('sign_in_identities')
      .columns(['internal_user_id', 'provider'])
      .unique()
      .execute();

    // The app key an installed app's sessions are minted with for signed-in people (what the hosted portal hands app
    // iframes): sealed with the server's secret, since a session token is encrypted with the key itself.
    await db.schema
      .createTable('portal_app_keys')
      .addColumn('install_id', 'text', (c) => c.primaryKey().references('installs.id').onDelete('cascade'))
      .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
      .addColumn('api_key_id', 'text', (c) => c.notNull().references('api_keys.id').onDelete('cascade'))
      .addColumn('sealed_key', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();

    await db.schema
      .alterTable('workspaces')
      .addColumn('staff_mfa_required', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema.alterTable('clients').addColumn('invite_expires_at', 'text').execute();
    await db.schema.createIndex('clients_invite_token').on('clients').columns(['invite_token_hash']).execute();
  },
});
