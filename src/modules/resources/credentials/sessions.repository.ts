import type { Kysely } from 'kysely';
import { preparedQuery } from '../../../db/prepared.js';
import type { DB } from '../../../db/schema.js';
import type { UnitOfWork } from '../../../db/unit-of-work.js';
import type { Access } from '../../../lib/caller.js';
import { type KeyCredential, credentialColumns, deleteExpired } from './api-keys.repository.js';

/** A new session: its id is the tokenId. */
export interface NewSession extends KeyCredential {
  internalUserId: string | null;
  clientId: string | null;
  companyId: string | null;
  /** The portal sign-in session that opened it (an app opened from the portal), else null. */
  signInSessionId: string | null;
}

/** A new session (its key's expired sessions removed). */
export function insertSession(work: UnitOfWork, access: Access, session: NewSession): void {
  deleteExpired(work, access, 'sessions', session.apiKeyId, session.createdAt);
  const values = {
    ...credentialColumns(access, session),
    internal_user_id: session.internalUserId,
    client_id: session.clientId,
    company_id: session.companyId,
    revoked_at: null,
    sign_in_session_id: session.signInSessionId,
  };
  work.write(work.db.insertInto('sessions').values(values));
}

/** Whether this client or internal user is marked as a QA principal (modules/surfaces/qa owns the mark). */
export async function isQaPrincipal(db: Kysely<DB>, access: Access, id: string): Promise<boolean> {
  const row = await db
    .selectFrom('qa_principals')
    .select('id')
    .where('workspace_id', '=', access.workspaceId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * A live (unrevoked) session presented with the key of this lookup, with that key (active), the
 * workspace's settings, the end user (absent when deleted since) and, for an app opened from the portal,
 * the sign-in session that opened it (absent when its person was removed), in one prepared query: this runs
 * on every session request. The key's secret, the expiry and the sign-in's end are checked by the caller.
 */
const sessionForRequest = preparedQuery('session_for_request', (db, p: { tokenId: string; lookup: string }) =>
  db
    .selectFrom('sessions')
    .innerJoin('api_keys', 'api_keys.id', 'sessions.api_key_id')
    .innerJoin('workspaces', 'workspaces.id', 'sessions.workspace_id')
    .leftJoin('internal_users', (join) =>
      join.onRef('internal_users.id', '=', 'sessions.internal_user_id').onRef('internal_users.workspace_id', '=', 'sessions.workspace_id'),
    )
    .leftJoin('clients', (join) =>
      join.onRef('clients.id', '=', 'sessions.client_id').onRef('clients.workspace_id', '=', 'sessions.workspace_id'),
    )
    .leftJoin('sign_in_sessions as sign_in', 'sign_in.id', 'sessions.sign_in_session_id')
    .select([
      'sessions.id',
      'sessions.workspace_id',
      'sessions.internal_user_id',
      'sessions.client_id',
      'sessions.company_id',
      'sessions.expires_at',
      'api_keys.id as api_key_id',
      'api_keys.app_id',
      'api_keys.secret_hash',
      'workspaces.daily_quota',
      'workspaces.clock_offset_ms',
      'internal_users.role',
      'internal_users.is_client_access_limited',
      'internal_users.company_access_list',
      'clients.company_ids as client_company_ids',
      'sessions.sign_in_session_id',
      'sign_in.id as sign_in_id',
      'sign_in.stage as sign_in_stage',
      'sign_in.second_factor as sign_in_second_factor',
      'sign_in.last_seen_at as sign_in_last_seen_at',
      'sign_in.expires_at as sign_in_expires_at',
      'sign_in.revoked_at as sign_in_revoked_at',
      'workspaces.staff_mfa_required',
    ])
    .where('sessions.id', '=', p.tokenId)
    .where('sessions.revoked_at', 'is', null)
    .where('api_keys.lookup', '=', p.lookup)
    .where('api_keys.revoked_at', 'is', null),
);

export function findSessionForRequest(db: Kysely<DB>, tokenId: string, lookup: string) {
  return sessionForRequest.first(db, { tokenId, lookup });
}

/** Revokes every live session of an internal user (removed from its workspace). */
export function revokeSessionsOf(work: UnitOfWork, access: Access, internalUserId: string, at: string): void {
  work.write(
    work.db
      .updateTable('sessions')
      .set({ revoked_at: at })
      .where('workspace_id', '=', access.workspaceId)
      .where('internal_user_id', '=', internalUserId)
      .where('revoked_at', 'is', null),
  );
}

/** Revokes every live session of a client (in any of its companies). */
export function revokeClientSessions(work: UnitOfWork, access: Access, clientId: string, at: string): void {
  work.write(
    work.db
      .updateTable('sessions')
      .set({ revoked_at: at })
      .where('workspace_id', '=', access.workspaceId)
      .where('client_id', '=', clientId)
      .where('revoked_at', 'is', null),
  );
}
