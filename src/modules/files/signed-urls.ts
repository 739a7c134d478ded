import { createHmac, timingSafeEqual } from 'node:crypto';

/** What a signed URL lets its holder do: put a file's content, or get it. */
export type SignedAction = 'upload' | 'download';

/**
 * Signed, expiring URLs to a file's content, served by this service: an HMAC-SHA256, under the server's
 * `files` secret (server_secrets: every process sharing the database agrees on it), of the action, the
 * workspace, the file and the expiry. Whoever holds the URL may do that one thing until it expires;
 * changing any part of it (another file, a later expiry) breaks the signature.
 */
export class UrlSigner {
  private readonly key: Buffer;

  constructor(serverSecret: string) {
    this.key = Buffer.from(`files-url\n${serverSecret}`);
  }

  private mac(action: SignedAction, workspaceId: string, fileId: string, expires: number): Buffer {
    return createHmac('sha256', this.key).update(`${action}\n${workspaceId}\n${fileId}\n${expires}`).digest();
  }

  /** The query string (`workspaceId`, `expires` in Unix seconds, `signature`) of a URL valid until `expires`. */
  sign(action: SignedAction, workspaceId: string, fileId: string, expires: number): string {
    const signature = this.mac(action, workspaceId, fileId, expires).toString('base64url');
    return new URLSearchParams({ workspaceId, expires: String(expires), signature }).toString();
  }

  /** Whether the signature is this service's for this action, workspace, file and expiry, and `now` (Unix seconds) is before it. */
  verify(action: SignedAction, workspaceId: string, fileId: string, expires: number, signature: string, now: number): boolean {
    if (!Number.isSafeInteger(expires) || expires <= now) return false;
    const given = Buffer.from(signature, 'base64url');
    const expected = this.mac(action, workspaceId, fileId, expires);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }
}
