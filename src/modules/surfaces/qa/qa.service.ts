import type { Database } from '../../../db/database.js';
import { type PageTokens, listAs } from '../../../db/paging.js';
import type { QaPrincipalKind } from '../../../db/schema.js';
import { unitOfWork } from '../../../db/unit-of-work.js';
import { recordAudit } from '../../../audit/index.js';
import type { Caller } from '../../../lib/caller.js';
import { isoAt } from '../../../lib/clock.js';
import { credentialsChanged } from '../../../lib/credential-cache.js';
import { errors } from '../../../lib/errors.js';
import {
  addBearerToken,
  createSession,
  findActiveApiKey,
  revokeClientSessions,
  revokeSessionsOf,
} from '../../resources/credentials/index.js';
import { findClient } from '../../resources/directory/index.js';
import { findInternalUser } from '../../resources/internal-users/index.js';
import * as repo from './qa.repository.js';
import {
  QA_AGENT_TOKEN_DEFAULT_SECONDS,
  type QaAgentToken,
  type QaAgentTokenCreate,
  type QaImpersonationToken,
  type QaImpersonationTokenCreate,
  type QaPrincipal,
  type QaPrincipalCreate,
  type QaPrincipalListQuery,
} from './qa.schemas.js';

export const listQaPrincipals: (
  database: Database,
  caller: Caller,
  query: QaPrincipalListQuery,
  tokens: PageTokens,
) => ReturnType<typeof repo.listQaPrincipals> = listAs(repo.listQaPrincipals);

export async function getQaPrincipal(database: Database, caller: Caller, id: string): Promise<QaPrincipal> {
  const principal = await repo.findQaPrincipal(database.db, caller.access, id);
  if (!principal) throw errors.notFound('QA principal');
  return principal;
}

/**
 * Marks a client or an internal user of the workspace as a QA principal: qaPrincipalCreated. 404 for a person
 * the workspace does not have (another workspace's included), 409 when already marked.
 */
export async function createQaPrincipal(database: Database, caller: Caller, input: QaPrincipalCreate): Promise<QaPrincipal> {
  if ((input.clientId === undefined) === (input.internalUserId === undefined))
    throw errors.invalidField('body.clientId', 'give exactly one of clientId and internalUserId');
  const { access, actor } = caller;
  return unitOfWork(
    database,
    async (work) => {
      let kind: QaPrincipalKind;
      let person: { id: string; email: string; givenName: string; familyName: string } | undefined;
      if (input.clientId !== undefined) {
        kind = 'client';
        person = await findClient(work.db, access, input.clientId);
        if (!person) throw errors.notFound('Client');
      } else {
        kind = 'internalUser';
        person = await findInternalUser(work.db, access, input.internalUserId ?? '');
        if (!person) throw errors.notFound('Internal user');
      }
      if (await repo.findQaPrincipal(work.db, access, person.id)) throw errors.conflict(`${person.email} is already a QA principal.`);
      const principal: QaPrincipal = {
        id: person.id,
        object: 'qaPrincipal',
        kind,
        email: person.email,
        givenName: person.givenName,
        familyName: person.familyName,
        createdAt: isoAt(actor.at),
      };
      repo.insertQaPrincipal(work, access, { id: principal.id, kind, email: person.email, createdAt: principal.createdAt });
      recordAudit(work, actor, {
        eventType: 'qaPrincipalCreated',
        description: `${kind === 'client' ? 'Client' : 'Internal user'} ${person.email} marked as a QA principal`,
        context: { principalId: principal.id, kind },
        subject: { object: 'qaPrincipal', id: principal.id, data: principal },
      });
      return principal;
    },
    { transaction: true },
  );
}

/**
 * Unmarks a QA principal and revokes every live session of its person (the impersonation tokens minted for it, and
 * any other): qaPrincipalDeleted. The client or internal user itself stays.
 */
export async function deleteQaPrincipal(database: Database, caller: Caller, id: string): Promise<void> {
  const { access, actor } = caller;
  await unitOfWork(
    database,
    async (work) => {
      const principal = await repo.findQaPrincipal(work.db, access, id);
      if (!principal) throw errors.notFound('QA principal');
      repo.deleteQaPrincipal(work, access, id);
      const at = isoAt(actor.at);
      if (principal.kind === 'client') revokeClientSessions(work, access, id, at);
      else revokeSessionsOf(work, access, id, at);
      recordAudit(work, actor, {
        eventType: 'qaPrincipalDeleted',
        description: `QA principal ${principal.email} removed; its sessions revoked`,
        context: { principalId: id, kind: principal.kind },
        subject: { object: 'qaPrincipal', id, data: principal },
      });
      work.onCommit(() => credentialsChanged(database));
    },
    { transaction: true },
  );
}

/**
 * An impersonation session token for a QA principal (what `portal sessions create` mints, for QA principals only):
 * qaImpersonationTokenMinted, recorded with the session in one unit of work. 404 for anyone not a QA principal.
 */
export async function mintImpersonationToken(
  database: Database,
  caller: Caller,
  id: string,
  input: QaImpersonationTokenCreate,
  settings: { lifetimeSeconds: number; baseUrl: string },
): Promise<QaImpersonationToken> {
  const principal = await getQaPrincipal(database, caller, id);
  const who = principal.kind === 'client' ? { clientId: id } : { internalUserId: id };
  // createSession records the impersonation (qaImpersonationTokenMinted) with the session.
  const session = await createSession(
    database,
    caller,
    { apiKey: input.apiKey, ...who, ...(input.companyId === undefined ? {} : { companyId: input.companyId }) },
    settings,
  );
  return { principalId: id, ...session };
}

/**
 * A short-lived bearer token for an app acting as an agent (no end user): the rights of one of the workspace's app
 * keys, as POST /v1/token gives, for `lifetimeSeconds` (default 15 minutes): qaAgentBearerMinted.
 */
export async function mintAgentToken(database: Database, caller: Caller, input: QaAgentTokenCreate): Promise<QaAgentToken> {
  const { access, actor } = caller;
  return unitOfWork(
    database,
    async (work) => {
      const key = await findActiveApiKey(work.db, access, input.apiKeyId);
      if (!key || key.kind !== 'app') throw errors.invalidField('body.apiKeyId', 'is not an active app API key of this workspace');
      const minted = addBearerToken(work, caller, key.id, input.lifetimeSeconds ?? QA_AGENT_TOKEN_DEFAULT_SECONDS);
      recordAudit(work, actor, {
        eventType: 'qaAgentBearerMinted',
        description: 'Agent bearer token minted for an app key',
        context: {
          apiKeyId: key.id,
          ...(key.app_id ? { appId: key.app_id } : {}),
          bearerTokenId: minted.bearerTokenId,
          tokenExpiresAt: minted.tokenExpiresAt,
        },
      });
      return { token: minted.token, tokenExpiresAt: minted.tokenExpiresAt, apiKeyId: key.id, ...(key.app_id ? { appId: key.app_id } : {}) };
    },
    { transaction: true },
  );
}
