import { performance } from 'node:perf_hooks';
import type { ApiPrincipal } from './caller.js';

/**
 * Verified credentials (API keys, bearer tokens, sessions), kept in process so that a request with
 * a credential seen in the last `ttlMs` needs neither a query nor a hash:
 * - an entry is found by the credential's non-secret part (a key's lookup, a session's tokenId, a
 *   token's first characters) and holds the secret part, compared in constant time; the secret lives
 *   in this process's memory only, like the request that carried it, and is never written or logged;
 * - an entry is trusted for `ttlMs` (at most 1 s) after it was verified against the database: a
 *   change made by another process (a key revoked with `portal keys revoke`, a workspace's quota
 *   changed on another server) takes effect here within that time;
 * - a change made by this process clears the cache when it commits (`credentialsChanged`), so it
 *   takes effect at once here;
 * - at most `maxEntries`; when full, the oldest entry goes (insertion order).
 * Expiry (bearer tokens, sessions) is still checked on every request, against the app's clock.
 */
export interface CachedCredential {
  readonly principal: ApiPrincipal;
  /** The credential's secret part, compared in constant time with the presented one. */
  readonly secret: string;
  /** When the credential expires (the workspace's clock, ms); Infinity for keys. */
  readonly expiresAt: number;
  /** performance.now() at verification. */
  readonly verifiedAt: number;
}

export class CredentialCache {
  private readonly entries = new Map<string, CachedCredential>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  /** The principal of a credential verified less than ttlMs ago whose secret matches, unexpired at `now` (the server's time) on its workspace's clock. */
  find(id: string, secret: string, now: number): ApiPrincipal | undefined {
    const entry = this.entries.get(id);
    if (entry === undefined) return undefined;
    if (performance.now() - entry.verifiedAt >= this.ttlMs || now + entry.principal.clockOffsetMs >= entry.expiresAt) {
      this.entries.delete(id);
      return undefined;
    }
    return sameInConstantTime(secret, entry.secret) ? entry.principal : undefined;
  }

  /** Remembers a credential just verified against the database. */
  remember(id: string, secret: string, principal: ApiPrincipal, expiresAt: number): void {
    if (this.ttlMs <= 0) return;
    if (this.entries.size >= this.maxEntries && !this.entries.has(id)) {
      this.entries.delete(this.entries.keys().next().value as string);
    }
    this.entries.delete(id); // re-inserted at the end: the oldest entries are the ones evicted
    this.entries.set(id, { principal, secret, expiresAt, verifiedAt: performance.now() });
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}

/**
 * Whether two strings are equal, looking at every character whatever the first difference (like
 * crypto.timingSafeEqual, without making two Buffers on every request). Only the length is not hidden:
 * every secret of a kind has the same length.
 */
function sameInConstantTime(presented: string, expected: string): boolean {
  if (presented.length !== expected.length) return false;
  let difference = 0;
  for (let i = 0; i < expected.length; i++) difference |= presented.charCodeAt(i) ^ expected.charCodeAt(i);
  return difference === 0;
}

/** One cache per open database: every app instance of one process on that database shares it. */
const caches = new WeakMap<object, CredentialCache>();
const DEFAULT_TTL_MS = 1000;

/** The credential cache of a database (created on first use; `ttlMs` applies only then). */
export function credentialCacheOf(database: object, ttlMs = DEFAULT_TTL_MS): CredentialCache {
  let cache = caches.get(database);
  if (!cache) {
    cache = new CredentialCache(ttlMs);
    caches.set(database, cache);
  }
  return cache;
}

/**
 * Called when a change that can alter what a credential grants has committed in this process (a key
 * or session revoked, a workspace's quota changed, a client's companies changed or the client deleted, a company
 * deleted): every cached credential of the database is verified again on its next use.
 */
export function credentialsChanged(database: object): void {
  caches.get(database)?.clear();
}
