import type { Kysely, SelectQueryBuilder } from 'kysely';
import { nonEmpty } from '../../db/json.js';
import { type PageRequest, type PageTokens, fetchPage, pageScope } from '../../db/paging.js';
import { preparedQuery } from '../../db/prepared.js';
import type { CompaniesTable, DB } from '../../db/schema.js';
import type { Access } from '../../lib/access.js';
import type { CompanyListFilters } from './companies.schemas.js';

/** Companies this access may see: its workspace's, narrowed to its companies for limited principals. */
function visible(db: Kysely<DB>, access: Access): SelectQueryBuilder<DB, 'companies', CompaniesTable> {
  let q = db.selectFrom('companies').selectAll().where('companies.workspace_id', '=', access.workspaceId);
  if (access.companyIds) q = q.where('companies.id', 'in', nonEmpty(access.companyIds));
  return q;
}

const companyById = preparedQuery('company_by_id', (db, p: { workspaceId: string; id: string }) =>
  db.selectFrom('companies').selectAll().where('companies.workspace_id', '=', p.workspaceId).where('companies.id', '=', p.id),
);

export function findCompany(db: Kysely<DB>, access: Access, id: string): Promise<CompaniesTable | undefined> {
  if (!access.companyIds) return companyById.first(db, { workspaceId: access.workspaceId, id });
  return visible(db, access).where('companies.id', '=', id).executeTakeFirst();
}

export function listCompanies(db: Kysely<DB>, access: Access, filters: CompanyListFilters, tokens: PageTokens, page: PageRequest) {
  let q = visible(db, access);
  if (filters.name !== undefined) q = q.where('companies.name', '=', filters.name);
  if (filters.isPlaceholder !== undefined) q = q.where('companies.is_placeholder', '=', filters.isPlaceholder ? 1 : 0);
  const scope = pageScope(access.workspaceId, 'companies', { name: filters.name, isPlaceholder: filters.isPlaceholder });
  return fetchPage(q, 'companies', page, tokens, scope);
}

/** The insert of a company, for a write batch. */
export function companyInsert(db: Kysely<DB>, row: CompaniesTable) {
  return db.insertInto('companies').values(row);
}

export async function updateCompany(db: Kysely<DB>, workspaceId: string, id: string, changes: Partial<CompaniesTable>) {
  await db.updateTable('companies').set(changes).where('workspace_id', '=', workspaceId).where('id', '=', id).execute();
}

export async function deleteCompany(db: Kysely<DB>, workspaceId: string, id: string) {
  await db.deleteFrom('client_companies').where('workspace_id', '=', workspaceId).where('company_id', '=', id).execute();
  await db.deleteFrom('companies').where('workspace_id', '=', workspaceId).where('id', '=', id).execute();
}

/** Every client with a membership in the company, with what a move needs. */
export function clientsOfCompany(db: Kysely<DB>, workspaceId: string, companyId: string) {
  return db
    .selectFrom('client_companies')
    .innerJoin('clients', 'clients.id', 'client_companies.client_id')
    .select(['clients.id', 'clients.company_id', 'clients.company_ids', 'clients.given_name', 'clients.family_name'])
    .where('client_companies.workspace_id', '=', workspaceId)
    .where('client_companies.company_id', '=', companyId)
    .execute();
}

/** Which of the given ids are companies of the workspace visible to this access. */
export async function existingCompanyIds(db: Kysely<DB>, access: Access, ids: readonly string[]): Promise<Set<string>> {
  const rows = await visible(db, access).clearSelect().select('companies.id').where('companies.id', 'in', nonEmpty(ids)).execute();
  return new Set(rows.map((r) => r.id));
}
