import type { Kysely, SelectQueryBuilder } from 'kysely';
import { nonEmpty } from '../../db/json.js';
import { type PageRequest, type PageTokens, fetchPage, pageScope } from '../../db/paging.js';
import { preparedQuery } from '../../db/prepared.js';
import type { ClientsTable, DB } from '../../db/schema.js';
import type { Access } from '../../lib/access.js';
import type { ClientListFilters } from './clients.schemas.js';

/** Clients this access may see: its workspace's; a limited principal only those of its companies; a client only itself. */
function visible(db: Kysely<DB>, access: Access): SelectQueryBuilder<DB, 'clients', ClientsTable> {
  let q = db.selectFrom('clients').selectAll().where('clients.workspace_id', '=', access.workspaceId);
  if (access.clientId) q = q.where('clients.id', '=', access.clientId);
  if (access.companyIds) {
    const companyIds = nonEmpty(access.companyIds);
    q = q.where(({ exists, selectFrom }) =>
      exists(selectFrom('client_companies as cc').select('cc.client_id').whereRef('cc.client_id', '=', 'clients.id').where('cc.company_id', 'in', companyIds)),
    );
  }
  return q;
}

const clientById = preparedQuery('client_by_id', (db, p: { workspaceId: string; id: string }) =>
  db.selectFrom('clients').selectAll().where('clients.workspace_id', '=', p.workspaceId).where('clients.id', '=', p.id),
);

export function findClient(db: Kysely<DB>, access: Access, id: string): Promise<ClientsTable | undefined> {
  if (!access.companyIds && !access.clientId) return clientById.first(db, { workspaceId: access.workspaceId, id });
  return visible(db, access).where('clients.id', '=', id).executeTakeFirst();
}

export function listClients(db: Kysely<DB>, access: Access, filters: ClientListFilters, tokens: PageTokens, page: PageRequest) {
  let q = visible(db, access);
  if (filters.email !== undefined) q = q.where('clients.email_key', '=', filters.email.trim().toLowerCase());
  if (filters.givenName !== undefined) q = q.where('clients.given_name', '=', filters.givenName);
  if (filters.familyName !== undefined) q = q.where('clients.family_name', '=', filters.familyName);
  if (filters.companyId !== undefined) {
    const companyId = filters.companyId;
    q = q.where(({ exists, selectFrom }) =>
      exists(selectFrom('client_companies as m').select('m.client_id').whereRef('m.client_id', '=', 'clients.id').where('m.company_id', '=', companyId)),
    );
  }
  const { limit: _l, nextToken: _n, ...scopeFilters } = filters;
  return fetchPage(q, 'clients', page, tokens, pageScope(access.workspaceId, 'clients', scopeFilters));
}

/** The insert of a client and its one membership, for a write batch. */
export function clientInserts(db: Kysely<DB>, row: ClientsTable) {
  return [
    db.insertInto('clients').values(row),
    db.insertInto('client_companies').values({ workspace_id: row.workspace_id, client_id: row.id, company_id: row.company_id }),
  ];
}

export async function updateClient(db: Kysely<DB>, workspaceId: string, id: string, changes: Partial<ClientsTable>) {
  await db.updateTable('clients').set(changes).where('workspace_id', '=', workspaceId).where('id', '=', id).execute();
}

export async function deleteClient(db: Kysely<DB>, workspaceId: string, id: string) {
  await db.deleteFrom('client_companies').where('workspace_id', '=', workspaceId).where('client_id', '=', id).execute();
  await db.deleteFrom('clients').where('workspace_id', '=', workspaceId).where('id', '=', id).execute();
}

/** Replaces the client's memberships with exactly these companies. */
export async function setMemberships(db: Kysely<DB>, workspaceId: string, clientId: string, companyIds: readonly string[]) {
  await db.deleteFrom('client_companies').where('workspace_id', '=', workspaceId).where('client_id', '=', clientId).execute();
  await db.insertInto('client_companies').values(companyIds.map((company_id) => ({ workspace_id: workspaceId, client_id: clientId, company_id }))).execute();
}
