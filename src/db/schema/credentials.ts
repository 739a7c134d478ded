/** API keys, the bearer tokens minted from them, and end-user sessions (modules/resources/credentials). */

/** The two kinds of API key (contract §2). */
export type ApiKeyKind = 'workspace' | 'app';

interface ApiKeysTable {
  id: string;
  workspace_id: string;
  kind: ApiKeyKind;
  app_id: string | null;
  /** Public, non-secret part of the key: the index used to find the row. */
  lookup: string;
  /** SHA-256 of the secret part, hex. */
  secret_hash: string;
  created_at: string;
  revoked_at: string | null;
  /** What the key is for, as its creator named it ("console": the admin console's key); null when unnamed. */
  label: string | null;
}

interface BearerTokensTable {
  id: string;
  workspace_id: string;
  api_key_id: string;
  /** SHA-256 of the token, hex: the token itself is never stored. */
  token_hash: string;
  created_at: string;
  /** Whole second (the `tokenExpiresAt` answered); refused from this instant on. */
  expires_at: string;
}

/** An end-user session: the `tokenId` of a session token and the principal it names. */
interface SessionsTable {
  /** The tokenId. */
  id: string;
  workspace_id: string;
  /** The app key the session was minted for: only it may present the session. */
  api_key_id: string;
  /** Exactly one of internal_user_id and client_id is set; company_id only with client_id. */
  internal_user_id: string | null;
  client_id: string | null;
  company_id: string | null;
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
  /** The portal sign-in session that opened it (modules/surfaces/sign-in: an app opened from the portal): it ends with it. */
  sign_in_session_id: string | null;
}

export interface CredentialsTables {
  api_keys: ApiKeysTable;
  bearer_tokens: BearerTokensTable;
  sessions: SessionsTable;
}
