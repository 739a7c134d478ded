import { randomUUID } from 'node:crypto';
import type { Database, DbHandle } from '../../../db/database.js';
import { unitOfWork } from '../../../db/unit-of-work.js';
import { recordAudit } from '../../../audit/index.js';
import type { Caller, ClientSessionPrincipal, InternalUserSessionPrincipal } from '../../../lib/caller.js';
import { isoAt } from '../../../lib/clock.js';
import { credentialsChanged } from '../../../lib/credential-cache.js';
import { type FieldProblem, errors } from '../../../lib/errors.js';
import { isUuid } from '../../../lib/formats.js';
import { SIGN_IN_IDLE_MS, mustStepDown } from '../../../lib/sign-in-sessions.js';
import { isUnrevoked, revoke } from './api-keys.repository.js';
import { parseApiKey, secretMatches, verifyApiKey } from './api-keys.service.js';
import { findClient } from '../directory/index.js';
import { findInternalUser } from '../internal-users/index.js';
import { type SessionTokenPayload, encryptSessionToken } from './sessions.crypto.js';
import * as repo from './sessions.repository.js';
import type { CreatedSession, SessionCreate } from './sessions.schemas.js';

/**
 * Mints a session token for an end user of the caller's workspace (an internal user, or a client in
 * one of its companies) on behalf of an app key, and records its `tokenId` with the end user and the expiry
 * (the caller's time is the workspace's: a sandbox's test clock included, as the session is checked on it).
 * Every mint is recorded in the same unit of work, whichever way it was asked for (the admin route, `portal sessions
 * create`, the QA surface, an app opened from the portal): sessionTokenMinted, or for a QA principal (modules/surfaces/qa)
 * qaImpersonationTokenMinted, an impersonation. A session opened from a portal sign-in (`signInSession`) ends with
 * it, and never outlives it.
 */
export async function createSession(
  database: Database,
  caller: Caller,
  input: SessionCreate,
  settings: {
    lifetimeSeconds: number;
    baseUrl: string;
    /** The portal sign-in session opening an app, and when it expires (the workspace's clock, ms). */
    signInSession?: { id: string; expiresAt: number };
  },
): Promise<CreatedSession> {
  const { access } = caller;
  const { workspaceId } = access;
  const problems: FieldProblem[] = [];
  const forClient = input.clientId !== undefined;
  if (forClient === (input.internalUserId !== undefined))
    problems.push({ path: 'clientId', message: 'give exactly one of clientId and internalUserId' });
  if (input.companyId !== undefined && !forClient) problems.push({ path: 'companyId', message: 'is only for a client session' });
  const key = await verifyApiKey(database.db, input.apiKey);
  if (!key || key.workspace_id !== workspaceId) problems.push({ path: 'apiKey', message: 'is not an active API key of this workspace' });
  else if (key.kind !== 'app')
    problems.push({ path: 'apiKey', message: 'must be an app key (sessions are an installed app acting for an end user)' });
  if (!key || problems.length) throw errors.badRequest(problems.map((p) => `${p.path}: ${p.message}`).join('; '), problems);

  const payload: SessionTokenPayload = { workspaceId, tokenId: randomUUID(), baseUrl: settings.baseUrl };
  let person: { id: string; email: string };
  if (input.clientId !== undefined) {
    const client = await findClient(database.db, access, input.clientId);
    if (!client) throw errors.notFound('Client');
    const companyId = input.companyId ?? client.companyId;
    if (!client.companyIds.includes(companyId)) throw errors.invalidField('companyId', 'is not a company of this client');
    payload.clientId = client.id;
    payload.companyId = companyId;
    person = client;
  } else {
    const user = await findInternalUser(database.db, access, input.internalUserId ?? '');
    if (!user) throw errors.notFound('Internal user');
    payload.internalUserId = user.id;
    person = user;
  }

  const now = caller.actor.at;
  const { signInSession } = settings;
  // Whole seconds (the token's `expiresAt`), never past the sign-in that opened it.
  const expiresAt = Math.floor(
    Math.min(now + settings.lifetimeSeconds * 1000, signInSession?.expiresAt ?? Number.POSITIVE_INFINITY) / 1000,
  );
  await unitOfWork(database, async (work) => {
    repo.insertSession(work, access, {
      id: payload.tokenId,
      apiKeyId: key.id,
      internalUserId: payload.internalUserId ?? null,
      clientId: payload.clientId ?? null,
      companyId: payload.companyId ?? null,
      createdAt: isoAt(now),
      expiresAt: isoAt(expiresAt * 1000),
      signInSessionId: signInSession?.id ?? null,
    });
    const qa = await repo.isQaPrincipal(work.db, access, person.id);
    recordAudit(work, caller.actor, {
      eventType: qa ? 'qaImpersonationTokenMinted' : 'sessionTokenMinted',
      description: qa ? `Impersonation token minted for QA principal ${person.email}` : `Session token minted for ${person.email}`,
      // The token itself is never recorded.
      context: {
        principalId: person.id,
        kind: forClient ? 'client' : 'internalUser',
        tokenId: payload.tokenId,
        apiKeyId: key.id,
        ...(payload.companyId ? { companyId: payload.companyId } : {}),
        ...(signInSession ? { signInSessionId: signInSession.id } : {}),
        expiresAt,
      },
    });
  });
  return { token: encryptSessionToken(input.apiKey, payload), tokenId: payload.tokenId, expiresAt };
}

/** Revokes a live session of the caller's workspace: 404 when there is none (unknown, another workspace's, already revoked or expired and swept). */
export async function revokeSession(database: Database, caller: Caller, tokenId: string): Promise<void> {
  await unitOfWork(
    database,
    async (work) => {
      const live = isUuid(tokenId) && (await isUnrevoked(work.db, caller.access, 'sessions', tokenId));
      if (!live) throw errors.notFound('Session');
      revoke(work, caller.access, 'sessions', tokenId, isoAt(caller.actor.at));
      work.onCommit(() => credentialsChanged(database));
    },
    { transaction: true },
  );
}

/** What a session principal carries beyond its kind: everything the auth plugin needs. */
type SessionPrincipal = InternalUserSessionPrincipal | ClientSessionPrincipal;

/**
 * When the portal sign-in session that opened an app session ends (the server's clock, ms): never for a session
 * no sign-in opened; already for one signed out, revoked (a password changed or reset), removed with its person,
 * or stepped down to the TOTP step (lib/sign-in-sessions.ts); else at its expiry or once idle too long.
 */
function signInEndOf(row: NonNullable<Awaited<ReturnType<typeof repo.findSessionForRequest>>>): number {
  if (row.sign_in_session_id === null) return Number.POSITIVE_INFINITY;
  if (row.sign_in_id === null || row.sign_in_revoked_at !== null || row.sign_in_stage !== 'active') return 0;
  const internalUser = row.internal_user_id !== null;
  if (mustStepDown({ internalUser, staffMfaRequired: row.staff_mfa_required === 1, secondFactor: row.sign_in_second_factor === 1 }))
    return 0;
  return Math.min(Date.parse(row.sign_in_expires_at ?? ''), Date.parse(row.sign_in_last_seen_at ?? '') + SIGN_IN_IDLE_MS) || 0;
}

/**
 * The principal of a session presented as `X-API-KEY: <workspaceId>/<appKey>/<tokenId>` and when the
 * session expires (ms, the workspace's clock), or undefined:
 * the key must be active and the one the session was minted for, the workspace the session's, the
 * session unexpired (at the workspace's time: `now` is the server's) and unrevoked, the portal sign-in that opened it
 * (if one did) not over, and its end user still there (a client still in the session's company).
 */
export async function verifySession(
  db: DbHandle,
  presented: { workspaceId: string; apiKey: string; tokenId: string },
  now: number,
): Promise<{ principal: SessionPrincipal; expiresAt: number } | undefined> {
  const key = parseApiKey(presented.apiKey);
  if (!key || !isUuid(presented.tokenId) || !isUuid(presented.workspaceId)) return undefined;
  const row = await repo.findSessionForRequest(db, presented.tokenId.toLowerCase(), key.lookup);
  if (!row || !secretMatches(key.secret, row.secret_hash)) return undefined;
  const clockOffsetMs = Number(row.clock_offset_ms);
  const expiresAt = Math.min(Date.parse(row.expires_at), signInEndOf(row) + clockOffsetMs);
  if (row.workspace_id !== presented.workspaceId.toLowerCase() || expiresAt <= now + clockOffsetMs) return undefined;
  const base = {
    workspaceId: row.workspace_id,
    apiKeyId: row.api_key_id,
    appId: row.app_id,
    dailyQuota: row.daily_quota,
    clockOffsetMs,
    sessionId: row.id,
  };
  if (row.internal_user_id !== null) {
    if (row.role === null) return undefined;
    const limited = row.is_client_access_limited === 1;
    const companyAccessList = limited ? (row.company_access_list ? row.company_access_list.split(',') : []) : null;
    const principal: SessionPrincipal = {
      ...base,
      kind: 'internalUserSession',
      internalUserId: row.internal_user_id,
      role: row.role,
      companyAccessList,
    };
    return { principal, expiresAt };
  }
  if (row.client_id === null || row.company_id === null || row.client_company_ids === null) return undefined;
  const clientCompanyIds = row.client_company_ids.split(',');
  if (!clientCompanyIds.includes(row.company_id)) return undefined;
  return { principal: { ...base, kind: 'clientSession', clientId: row.client_id, companyId: row.company_id, clientCompanyIds }, expiresAt };
}
