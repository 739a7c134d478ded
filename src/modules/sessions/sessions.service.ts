import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { writeBatch } from '../../db/batch.js';
import type { DB } from '../../db/schema.js';
import { workspaceAccess } from '../../lib/access.js';
import { type Clock, isoAt } from '../../lib/clock.js';
import { type FieldProblem, errors } from '../../lib/errors.js';
import { parseApiKey, secretMatches, verifyApiKey } from '../api-keys/api-keys.service.js';
import { findClient } from '../clients/clients.repository.js';
import { findInternalUser } from '../internal-users/internal-users.repository.js';
import { findWorkspace } from '../workspaces/workspaces.repository.js';
import { type SessionTokenPayload, encryptSessionToken } from './sessions.crypto.js';
import * as repo from './sessions.repository.js';
import type { CreatedSession } from './sessions.schemas.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface SessionInput {
  /** The app API key the session is for. */
  apiKey: string;
  clientId?: string;
  /** With clientId: one of the client's companies; its primary company when absent. */
  companyId?: string;
  internalUserId?: string;
}

/**
 * Mints a session token for an end user of `workspaceId` (an internal user, or a client in one of its
 * companies) on behalf of an app key, and records its `tokenId` with the principal and the expiry.
 */
export async function createSession(
  db: Kysely<DB>,
  workspaceId: string,
  input: SessionInput,
  clock: Clock,
  lifetimeSeconds: number,
): Promise<CreatedSession> {
  if (!UUID.test(workspaceId) || !(await findWorkspace(db, workspaceId.toLowerCase()))) throw errors.notFound('Workspace');
  workspaceId = workspaceId.toLowerCase();
  const problems: FieldProblem[] = [];
  const forClient = input.clientId !== undefined;
  if (forClient === (input.internalUserId !== undefined)) problems.push({ path: 'clientId', message: 'give exactly one of clientId and internalUserId' });
  if (input.companyId !== undefined && !forClient) problems.push({ path: 'companyId', message: 'is only for a client session' });
  for (const field of ['clientId', 'companyId', 'internalUserId'] as const) {
    const value = input[field];
    if (value !== undefined && !UUID.test(value)) problems.push({ path: field, message: 'must be a UUID' });
  }
  const key = await verifyApiKey(db, input.apiKey);
  if (!key || key.workspace_id !== workspaceId) problems.push({ path: 'apiKey', message: 'is not an active API key of this workspace' });
  else if (key.kind !== 'app') problems.push({ path: 'apiKey', message: 'must be an app key (sessions are an installed app acting for an end user)' });
  if (problems.length) throw errors.badRequest(problems.map((p) => `${p.path}: ${p.message}`).join('; '), problems);

  const payload: SessionTokenPayload = { workspaceId, tokenId: randomUUID() };
  const access = workspaceAccess(workspaceId);
  if (input.clientId !== undefined) {
    const client = await findClient(db, access, input.clientId.toLowerCase());
    if (!client) throw errors.notFound('Client');
    const companyId = input.companyId?.toLowerCase() ?? client.company_id;
    if (!client.company_ids.split(',').includes(companyId)) throw errors.invalidField('companyId', 'is not a company of this client');
    payload.clientId = client.id;
    payload.companyId = companyId;
  } else {
    const user = await findInternalUser(db, workspaceId, input.internalUserId!.toLowerCase());
    if (!user) throw errors.notFound('Internal user');
    payload.internalUserId = user.id;
  }

  const now = clock.now();
  const expiresAt = Math.floor(now / 1000) + lifetimeSeconds;
  await writeBatch(
    db,
    repo.sessionWrites(
      db,
      workspaceId,
      {
        id: payload.tokenId,
        api_key_id: key!.id,
        internal_user_id: payload.internalUserId ?? null,
        client_id: payload.clientId ?? null,
        company_id: payload.companyId ?? null,
        created_at: isoAt(now),
        expires_at: isoAt(expiresAt * 1000),
      },
      isoAt(now),
    ),
  );
  return { token: encryptSessionToken(input.apiKey, payload), tokenId: payload.tokenId, expiresAt };
}

/** Revokes a live session of this workspace: 404 when there is none (unknown, another workspace's, already revoked or expired and swept). */
export async function revokeSession(db: Kysely<DB>, workspaceId: string, tokenId: string, clock: Clock): Promise<void> {
  const found = UUID.test(workspaceId) && UUID.test(tokenId) && (await repo.revokeSession(db, workspaceId.toLowerCase(), tokenId.toLowerCase(), isoAt(clock.now())));
  if (!found) throw errors.notFound('Session');
}

/** The end user a session request acts as, once everything checks out. */
export interface VerifiedSession {
  tokenId: string;
  workspaceId: string;
  apiKeyId: string;
  appId: string | null;
  dailyQuota: number;
  internalUser?: { id: string; role: 'admin' | 'staff'; companyAccessList: string[] | null };
  client?: { id: string; companyId: string; companyIds: string[] };
}

/**
 * A session presented as `X-API-KEY: <workspaceId>/<appKey>/<tokenId>`, or undefined: the key must be
 * active and the one the session was minted for, the workspace the session's, the session unexpired
 * and unrevoked, and its end user still there (a client still in the session's company).
 */
export async function verifySession(
  db: Kysely<DB>,
  presented: { workspaceId: string; apiKey: string; tokenId: string },
  now: number,
): Promise<VerifiedSession | undefined> {
  const key = parseApiKey(presented.apiKey);
  if (!key || !UUID.test(presented.tokenId) || !UUID.test(presented.workspaceId)) return undefined;
  const row = await repo.findSessionForRequest(db, presented.tokenId.toLowerCase(), key.lookup);
  if (!row || !secretMatches(key.secret, row.secret_hash)) return undefined;
  if (row.workspace_id !== presented.workspaceId.toLowerCase() || Date.parse(row.expires_at) <= now) return undefined;
  const base = { tokenId: row.id, workspaceId: row.workspace_id, apiKeyId: row.api_key_id, appId: row.app_id, dailyQuota: row.daily_quota };
  if (row.internal_user_id !== null) {
    if (row.role === null) return undefined;
    const limited = row.is_client_access_limited === 1;
    return {
      ...base,
      internalUser: { id: row.internal_user_id, role: row.role, companyAccessList: limited && row.company_access_list ? row.company_access_list.split(',') : limited ? [] : null },
    };
  }
  if (row.client_id === null || row.company_id === null || row.client_company_ids === null) return undefined;
  const companyIds = row.client_company_ids.split(',');
  if (!companyIds.includes(row.company_id)) return undefined;
  return { ...base, client: { id: row.client_id, companyId: row.company_id, companyIds } };
}
