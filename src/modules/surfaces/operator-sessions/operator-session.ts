import type { DbHandle } from '../../../db/database.js';
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { isoAt } from '../../../lib/clock.js';
import { isRevoked, revoke } from './operator-session.repository.js';

const digest = (text: string) => createHash('sha256').update(text).digest();

/** Whether `presented` is the admin token, in constant time (as SHA-256 digests, so the length leaks nothing either). */
export function adminTokenMatcher(adminToken: string) {
  const expected = digest(adminToken);
  return (presented: string) => timingSafeEqual(digest(presented), expected);
}

/** The admin console's session cookie: HttpOnly (no script reads it), SameSite=Strict (no other site sends it). */
export const SESSION_COOKIE = 'portal_admin';
/** The header a cookie-authenticated admin request must carry (see adminGuard). */
export const CONSOLE_HEADER = 'x-portal-console';
const LIFETIME_MS = 8 * 3600_000;

/**
 * Operator sessions that any replica behind a balancer accepts: `<expiry ms>.<nonce>.<HMAC-SHA256>` under a
 * key derived from PORTAL_ADMIN_TOKEN, so verifying needs no shared state but one thing: signing out records
 * the cookie's hash in the database until its expiry, and every replica refuses it from then on. Changing
 * the token ends every session; none outlives its 8 hours.
 */
export class OperatorSessions {
  private readonly key: Buffer;

  constructor(
    adminToken: string,
    private readonly db: DbHandle,
  ) {
    this.key = createHmac('sha256', adminToken).update('portal console session v1').digest();
  }

  issue(now: number): { value: string; expiresAt: number } {
    const expiresAt = now + LIFETIME_MS;
    const body = `${expiresAt}.${randomBytes(16).toString('base64url')}`;
    return { value: `${body}.${this.sign(body)}`, expiresAt };
  }

  /** The session's expiry (ms) when `value` is one of ours, unexpired and not signed out; undefined otherwise. */
  async verify(value: string, now: number): Promise<number | undefined> {
    const expiresAt = this.signedExpiry(value, now);
    if (expiresAt === undefined || (await isRevoked(this.db, hashOf(value)))) return undefined;
    return expiresAt;
  }

  /** Ends a session on every replica (signing out); anything that is not a valid session is ignored. */
  async revoke(value: string, now: number): Promise<void> {
    const expiresAt = this.signedExpiry(value, now);
    if (expiresAt !== undefined) await revoke(this.db, hashOf(value), isoAt(expiresAt), isoAt(now));
  }

  /** The expiry (ms) when `value` carries our signature and has not expired. */
  private signedExpiry(value: string, now: number): number | undefined {
    const dot = value.lastIndexOf('.');
    if (dot < 0) return undefined;
    const body = value.slice(0, dot);
    const presented = Buffer.from(value.slice(dot + 1), 'base64url');
    const expected = Buffer.from(this.sign(body), 'base64url');
    if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) return undefined;
    const expiresAt = Number(body.slice(0, body.indexOf('.')));
    return Number.isSafeInteger(expiresAt) && expiresAt > now ? expiresAt : undefined;
  }

  private sign(body: string): string {
    return createHmac('sha256', this.key).update(body).digest('base64url');
  }
}

/** What is stored of a signed-out cookie: its SHA-256, never the cookie. */
const hashOf = (value: string) => createHash('sha256').update(value).digest('hex');

/** The Set-Cookie value for a session (`maxAgeSeconds` 0 clears it). */
export function sessionCookie(value: string, maxAgeSeconds: number, secure: boolean): string {
  return `${SESSION_COOKIE}=${value}; Path=/; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
}
