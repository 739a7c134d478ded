import type { Kysely } from 'kysely';
import type { DB } from '../../../db/schema.js';

/** Whether a console session (by its cookie's hash) was signed out: one primary-key lookup. */
export async function isRevoked(db: Kysely<DB>, sessionHash: string): Promise<boolean> {
  const row = await db
    .selectFrom('console_session_revocations')
    .select('session_hash')
    .where('session_hash', '=', sessionHash)
    .executeTakeFirst();
  return row !== undefined;
}

/** Records a signed-out session until its expiry, and forgets those already expired (few: one per sign-out in 8 hours). */
export async function revoke(db: Kysely<DB>, sessionHash: string, expiresAt: string, now: string): Promise<void> {
  await db.deleteFrom('console_session_revocations').where('expires_at', '<=', now).execute();
  await db
    .insertInto('console_session_revocations')
    .values({ session_hash: sessionHash, expires_at: expiresAt })
    .onConflict((oc) => oc.column('session_hash').doNothing())
    .execute();
}
