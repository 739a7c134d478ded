import { createCipheriv, createHmac, randomBytes } from 'node:crypto';

/** What a session token carries (every value a string, as the official Node SDK requires). */
export interface SessionTokenPayload {
  workspaceId: string;
  clientId?: string;
  companyId?: string;
  internalUserId?: string;
  tokenId: string;
  /** Where the app's SDK sends the session's calls: this service (PORTAL_URL), so a sandbox needs no code change. */
  baseUrl?: string;
}

/**
 * The AES key of an app's session tokens: the first 32 hex characters of HMAC-SHA256 keyed with the
 * app's API key over the empty message, read as hex, so 16 bytes (AES-128). The official Node SDK does
 * exactly this (`Buffer.from(hmacHex.slice(0, 32), 'hex')` into `aes-128-cbc`); taking the 32
 * characters as 32 UTF-8 bytes would be an AES-256 key, which contract §2 (AES-128-CBC) rules out.
 */
function sessionCipherKey(apiKey: string): Buffer {
  return Buffer.from(createHmac('sha256', apiKey).update('').digest('hex').slice(0, 32), 'hex');
}

/** hex(16-byte random IV ‖ AES-128-CBC(PKCS#7) of the JSON payload): the format the official Node SDK decrypts. */
export function encryptSessionToken(apiKey: string, payload: SessionTokenPayload): string {
  const iv = randomBytes(16);
  const cipher = createCipheriv('aes-128-cbc', sessionCipherKey(apiKey), iv);
  return Buffer.concat([iv, cipher.update(JSON.stringify(payload), 'utf8'), cipher.final()]).toString('hex');
}
