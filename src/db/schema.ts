/**
 * Row types of every table, composed into one `DB` type for Kysely.
 * Portable column types: text ids, ISO-8601 text timestamps (sort as strings), 0/1 integer booleans,
 * JSON as text. One query then serves SQLite and PostgreSQL alike.
 */
export interface ServerSecretsTable {
  name: string;
  value: string;
}

export interface WorkspacesTable {
  id: string;
  name: string;
  daily_quota: number;
  created_at: string;
  updated_at: string;
}

export interface ApiKeysTable {
  id: string;
  workspace_id: string;
  kind: 'workspace' | 'app';
  app_id: string | null;
  /** Public, non-secret part of the key: the index used to find the row. */
  lookup: string;
  /** SHA-256 of the secret part, hex. */
  secret_hash: string;
  created_at: string;
  revoked_at: string | null;
}

export interface DB {
  server_secrets: ServerSecretsTable;
  workspaces: WorkspacesTable;
  api_keys: ApiKeysTable;
}
