// Signed, expiring URLs to a file's content: the signer, and the URLs a file object is served with.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { type Caller, isClient } from '../../../lib/caller.js';
import type { FileObject } from './files.schemas.js';

/**
 * What a signed URL lets its holder do: put a file's content, or get it. An upload URL handed to a client
 * session is signed as `clientUpload`, so that the upload can check, when it comes, that clients may still
 * write where the file is (staff may write anywhere they see).
 */
export type SignedAction = 'upload' | 'clientUpload' | 'download';

/** The one form of each query value this service writes: an expiry without leading zero or sign, a signature of 43 base64url characters. */
const EXPIRES = /^[1-9][0-9]{0,11}$/;
const SIGNATURE = /^[A-Za-z0-9_-]{43}$/;

/**
 * Signed, expiring URLs to a file's content, served by this service: an HMAC-SHA256, under the server's
 * `files` secret (server_secrets: every process sharing the database agrees on it), of the action, the
 * workspace, the file and the expiry. Whoever holds the URL may do that one thing until it expires;
 * changing any part of it (another file, a later expiry, another spelling of the same values) breaks it.
 */
export class UrlSigner {
  private readonly key: Buffer;

  constructor(serverSecret: string) {
    this.key = Buffer.from(`files-url\n${serverSecret}`);
  }

  private mac(action: SignedAction, workspaceId: string, fileId: string, expires: string): string {
    return createHmac('sha256', this.key).update(`${action}\n${workspaceId}\n${fileId}\n${expires}`).digest('base64url');
  }

  /** The query string (`workspaceId`, `expires` in Unix seconds, `signature`) of a URL valid until `expires`. */
  sign(action: SignedAction, workspaceId: string, fileId: string, expires: number): string {
    const text = String(expires);
    return new URLSearchParams({ workspaceId, expires: text, signature: this.mac(action, workspaceId, fileId, text) }).toString();
  }

  /**
   * Whether the signature is this service's for this action, workspace, file and expiry, written exactly as
   * `sign` writes them (another spelling of the same number or bytes is refused), and `now` (Unix seconds) is before it.
   */
  verify(action: SignedAction, workspaceId: string, fileId: string, expires: string, signature: string, now: number): boolean {
    if (!EXPIRES.test(expires) || !SIGNATURE.test(signature) || Number(expires) <= now) return false;
    const given = Buffer.from(signature);
    const expected = Buffer.from(this.mac(action, workspaceId, fileId, expires));
    return given.length === expected.length && timingSafeEqual(given, expected);
  }
}

/** What a signed URL is made with (FileSettings' part). */
export interface UrlSettings {
  readonly signer: UrlSigner;
  /** Where signed URLs point: this service's public address (PORTAL_URL), never a Host a request named. */
  readonly baseUrl: string;
  readonly urlTtlSeconds: number;
}

export function signedUrl(settings: UrlSettings, action: SignedAction, workspaceId: string, id: string, nowMs: number): string {
  const expires = Math.floor(nowMs / 1000) + settings.urlTtlSeconds;
  const route = action === 'download' ? 'downloads' : 'uploads';
  return `${settings.baseUrl}/files/${route}/${id}?${settings.signer.sign(action, workspaceId, id, expires)}`;
}

/**
 * A file object as a single answer: a file with content gets its downloadUrl; one without, its uploadUrl
 * when the caller may write where it is (`mayWrite`), and nothing otherwise.
 */
export function withUrls(settings: UrlSettings, caller: Caller, file: FileObject, mayWrite: boolean): FileObject {
  if (file.object !== 'file') return file;
  const { workspaceId } = caller.access;
  if (file.status === 'completed') return { ...file, downloadUrl: signedUrl(settings, 'download', workspaceId, file.id, caller.actor.at) };
  if (!mayWrite) return file;
  const action = isClient(caller.principal) ? 'clientUpload' : 'upload';
  return { ...file, uploadUrl: signedUrl(settings, action, workspaceId, file.id, caller.actor.at) };
}
