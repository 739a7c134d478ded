/** People signing in: sessions, one-time links, credentials, linked identities and pictures (modules/surfaces/sign-in). */

/** Exactly one of the two is set: whose row it is. */
interface PersonRef {
  id: string;
  workspace_id: string;
  client_id: string | null;
  internal_user_id: string | null;
}

export type SignInMethod = 'password' | 'magicLink' | 'invite' | 'passwordReset' | 'oidc';

interface SignInSessionsTable extends PersonRef {
  /** SHA-256 of the cookie's secret, hex. */
  token_hash: string;
  method: SignInMethod;
  /** 'mfa': the first factor passed, the TOTP step not yet; such a session opens nothing else. */
  stage: 'active' | 'mfa';
  ip: string | null;
  user_agent: string | null;
  created_at: string;
  last_seen_at: string;
  expires_at: string;
  revoked_at: string | null;
  /** 1 once the session passed a second factor (TOTP or a recovery code, or enrolled one to finish signing in). */
  second_factor: number;
}

export type SignInLinkPurpose = 'signIn' | 'passwordReset';

interface SignInLinksTable extends PersonRef {
  token_hash: string;
  purpose: SignInLinkPurpose;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

interface SignInCredentialsTable extends PersonRef {
  /** Argon2id, PHC string. */
  password_hash: string | null;
  password_changed_at: string | null;
  /** base32; set at enrolment, in force once `totp_enabled_at` is set. */
  totp_secret: string | null;
  totp_enabled_at: string | null;
  /** The last time step a code was accepted for: a code is never accepted twice. */
  totp_last_step: number | null;
  /** JSON array of SHA-256 hashes of the unused recovery codes. */
  recovery_code_hashes: string | null;
  updated_at: string;
}

interface SignInIdentitiesTable extends PersonRef {
  provider: string;
  subject: string;
  email: string | null;
  created_at: string;
}

/** The app key an install's sessions for signed-in people are minted with, sealed (SecretBox). */
interface PortalAppKeysTable {
  install_id: string;
  workspace_id: string;
  api_key_id: string;
  sealed_key: string;
  created_at: string;
}

/** A person's picture (the portal's account page): its bytes, their SHA-256 and the type sniffed from them. */
interface AvatarsTable extends PersonRef {
  /** SHA-256 of the bytes, hex: the last segment of the picture's URL. */
  content_hash: string;
  /** image/png, image/jpeg, image/webp or image/gif: sniffed from the bytes (lib/images.ts). */
  content_type: string;
  byte_size: number;
  bytes: Uint8Array;
  created_at: string;
}

export interface SignInTables {
  avatars: AvatarsTable;
  portal_app_keys: PortalAppKeysTable;
  sign_in_sessions: SignInSessionsTable;
  sign_in_links: SignInLinksTable;
  sign_in_credentials: SignInCredentialsTable;
  sign_in_identities: SignInIdentitiesTable;
}
