/** Workspaces and what the server keeps for them: secrets, quota use, idempotency keys, console sign-outs. */

interface ServerSecretsTable {
  name: string;
  value: string;
}

export interface WorkspacesTable {
  id: string;
  name: string;
  daily_quota: number;
  /** 1: internal users must pass a TOTP step to sign in (workspaceMfaEnabled). */
  staff_mfa_required: number;
  /** 1: a sandbox, whose time its test clock moves (workspace time = server time + clock_offset_ms). */
  sandbox: number;
  /** ms the test clock is ahead of the server (0 outside a sandbox); bigint: PostgreSQL may answer it as text. */
  clock_offset_ms: number | string;
  /** #rrggbb: invoices and contracts are drawn in it; null: one derived from the id. */
  brand_color: string | null;
  created_at: string;
  updated_at: string;
}

/** A workspace's logo (at most one): the image's bytes, and the SHA-256 that names them in its public URL. */
interface WorkspaceLogosTable {
  workspace_id: string;
  /** SHA-256 of `bytes`, hex */
  hash: string;
  /** read from the bytes (lib/images.ts sniffImage): image/png, image/jpeg, image/webp or image/gif */
  content_type: string;
  /** pixels, read from the bytes */
  width: number;
  height: number;
  bytes: Buffer;
  updated_at: string;
}

interface QuotaUsageTable {
  workspace_id: string;
  /** UTC day, YYYY-MM-DD */
  day: string;
  used: number;
}

interface IdempotencyKeysTable {
  workspace_id: string;
  /** Whose answer this is (lib/caller.ts idempotencyScopeOf): one credential's keys never meet another's. */
  scope: string;
  key: string;
  /** SHA-256 of the method, URL and body of the first request */
  fingerprint: string;
  /** null while the first request runs */
  status_code: number | null;
  /** The answer's body sealed with a key derived from the caller's credential secret (idempotency/answer-seal.ts). */
  sealed_body: string | null;
  created_at: string;
}

/** A console session ended by signing out, until it would have expired (modules/surfaces/operator-sessions/operator-session.ts). */
/** What a running server says of itself to the others (db/server-settings.ts). */
interface ServerSettingsTable {
  name: string;
  value: string;
  updated_at: string;
}

interface ConsoleSessionRevocationsTable {
  /** SHA-256 of the cookie value, hex: the cookie itself is never stored. */
  session_hash: string;
  expires_at: string;
}

export interface PlatformTables {
  server_secrets: ServerSecretsTable;
  workspaces: WorkspacesTable;
  workspace_logos: WorkspaceLogosTable;
  quota_usage: QuotaUsageTable;
  idempotency_keys: IdempotencyKeysTable;
  console_session_revocations: ConsoleSessionRevocationsTable;
  server_settings: ServerSettingsTable;
}
