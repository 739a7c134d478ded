import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.js';
import { isoAt } from '../lib/clock.js';

/** How long a key's answer is kept and replayed. */
const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/**
 * A claim still unanswered after this long was abandoned by a process that died (requests are cut off
 * long before: REQUEST_TIMEOUT_MS is at most a few tens of seconds): a retry takes it over.
 */
const ABANDONED_AFTER_MS = 5 * 60 * 1000;

/** What a request with an Idempotency-Key finds. */
export type Claim =
  | { kind: 'claimed' }
  | { kind: 'replay'; statusCode: number; sealedBody: string }
  | { kind: 'running' }
  | { kind: 'mismatch' };

/** Where a key's answer lives: a workspace, the credential's scope (lib/caller.ts idempotencyScopeOf) and the key. */
export interface Slot {
  workspaceId: string;
  scope: string;
  key: string;
}

/** The request a key was first used with: method, URL and body (as validated). */
export function fingerprintOf(method: string, url: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method} ${url}\n${JSON.stringify(body ?? null)}`)
    .digest('base64url');
}

const bySlot = (db: Kysely<DB>, slot: Slot) =>
  db
    .selectFrom('idempotency_keys')
    .where('workspace_id', '=', slot.workspaceId)
    .where('scope', '=', slot.scope)
    .where('key', '=', slot.key);

/**
 * Claims the key for this request, or says what an earlier one left: its answer to replay, that it is
 * still running, or that it was another request. An expired or abandoned claim is taken over (the
 * delete is conditional on its created_at, so of two racing takers only one inserts).
 */
export async function claimKey(db: Kysely<DB>, slot: Slot, fingerprint: string, now: number): Promise<Claim> {
  const { workspaceId, scope, key } = slot;
  for (let attempt = 0; attempt < 3; attempt++) {
    const inserted = await db
      .insertInto('idempotency_keys')
      .values({ workspace_id: workspaceId, scope, key, fingerprint, status_code: null, sealed_body: null, created_at: isoAt(now) })
      .onConflict((oc) => oc.columns(['workspace_id', 'scope', 'key']).doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1) return { kind: 'claimed' };
    const row = await bySlot(db, slot).select(['fingerprint', 'status_code', 'sealed_body', 'created_at']).executeTakeFirst();
    if (!row) continue; // taken over and released meanwhile: claim again
    const age = now - Date.parse(row.created_at);
    if (age < IDEMPOTENCY_TTL_MS) {
      if (row.fingerprint !== fingerprint) return { kind: 'mismatch' };
      if (row.status_code !== null && row.sealed_body !== null)
        return { kind: 'replay', statusCode: row.status_code, sealedBody: row.sealed_body };
      if (age < ABANDONED_AFTER_MS) return { kind: 'running' };
    }
    await db
      .deleteFrom('idempotency_keys')
      .where('workspace_id', '=', workspaceId)
      .where('scope', '=', scope)
      .where('key', '=', key)
      .where('created_at', '=', row.created_at)
      .execute();
  }
  return { kind: 'running' };
}

/** Keeps the (sealed) answer of a claimed key, for its retries. */
export async function recordAnswer(db: Kysely<DB>, slot: Slot, statusCode: number, sealedBody: string): Promise<void> {
  await db
    .updateTable('idempotency_keys')
    .set({ status_code: statusCode, sealed_body: sealedBody })
    .where('workspace_id', '=', slot.workspaceId)
    .where('scope', '=', slot.scope)
    .where('key', '=', slot.key)
    .where('status_code', 'is', null)
    .execute();
}

/** Gives a claimed key up (its request failed validation): a retry runs afresh. */
export async function releaseKey(db: Kysely<DB>, slot: Slot): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('workspace_id', '=', slot.workspaceId)
    .where('scope', '=', slot.scope)
    .where('key', '=', slot.key)
    .where('status_code', 'is', null)
    .execute();
}

/** Deletes every key older than the TTL, in all workspaces. */
export async function sweepExpiredKeys(db: Kysely<DB>, now: number): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('created_at', '<', isoAt(now - IDEMPOTENCY_TTL_MS))
    .execute();
}
