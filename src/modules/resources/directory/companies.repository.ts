import { type ExpressionBuilder, type Kysely, type SelectQueryBuilder, sql } from 'kysely';
import { nonEmpty, objectFields, parseObject } from '../../../db/rows.js';
import { type Page, type PageTokens, fetchPage, pageScope, preparedList } from '../../../db/paging.js';
import { type FullRow, preparedQuery, preparedWrite } from '../../../db/prepared.js';
import type { CompaniesTable, DB } from '../../../db/schema.js';
import type { UnitOfWork } from '../../../db/unit-of-work.js';
import type { Access } from '../../../lib/caller.js';
import { nameTerms, prefixRange } from '../../../lib/search-terms.js';
import type { Company, CompanyListQuery } from './companies.schemas.js';

function toCompany(row: CompaniesTable): Company {
  const company: Company = {
    ...objectFields(row, 'company'),
    name: row.name,
    customFields: parseObject(row.custom_fields),
    fallbackColor: row.fallback_color,
    isPlaceholder: row.is_placeholder === 1,
  };
  // Assigned only when set: a spread object for it made each company a slow object to build and serialize.
  if (row.icon_image_url) company.iconImageUrl = row.icon_image_url;
  return company;
}

/** Names are unique per workspace case-insensitively; placeholders (null key) are exempt. */
const nameKeyOf = (company: Company) => (company.isPlaceholder ? null : company.name.trim().toLowerCase());

/** Companies this access may see: its workspace's, narrowed to its companies for limited principals. */
function visible(db: Kysely<DB>, access: Access): SelectQueryBuilder<DB, 'companies', CompaniesTable> {
  let q = db.selectFrom('companies').selectAll().where('companies.workspace_id', '=', access.workspaceId);
  if (access.companyIds) q = q.where('companies.id', 'in', nonEmpty(access.companyIds));
  return q;
}

const companyById = preparedQuery('company_by_id', (db, p: { workspaceId: string; id: string }) =>
  db.selectFrom('companies').selectAll().where('companies.workspace_id', '=', p.workspaceId).where('companies.id', '=', p.id),
);

export async function findCompany(db: Kysely<DB>, access: Access, id: string): Promise<Company | undefined> {
  const row = !access.companyIds
    ? await companyById.first(db, { workspaceId: access.workspaceId, id })
    : await visible(db, access).where('companies.id', '=', id).executeTakeFirst();
  return row && toCompany(row);
}

/** The list's filters, as stored. A type, not an interface: prepared lists take records. */
type CompanyFilters = { name?: string; isPlaceholder?: number };

function filtered(q: SelectQueryBuilder<DB, 'companies', CompaniesTable>, f: CompanyFilters) {
  let filteredQuery = q;
  if (f.name !== undefined) filteredQuery = filteredQuery.where('companies.name', '=', f.name);
  if (f.isPlaceholder !== undefined) filteredQuery = filteredQuery.where('companies.is_placeholder', '=', f.isPlaceholder);
  return filteredQuery;
}

/** A whole workspace's companies (a principal not limited to some): prepared per filter shape. */
const workspaceCompanies = preparedList(
  'companies_page',
  (db, p: CompanyFilters & { workspaceId: string }) =>
    filtered(db.selectFrom('companies').selectAll().where('companies.workspace_id', '=', p.workspaceId), p),
  'companies',
  toCompany,
);

/** A page of companies; a search (`q`) is its own query, taken only when given (as the clients'). */
export async function listCompanies(db: Kysely<DB>, access: Access, query: CompanyListQuery, tokens: PageTokens): Promise<Page<Company>> {
  const { limit, nextToken, name, isPlaceholder, q } = query;
  const scope = pageScope(access, 'companies', { name, isPlaceholder, q });
  const stored = { name, isPlaceholder: isPlaceholder === undefined ? undefined : isPlaceholder ? 1 : 0 };
  if (q !== undefined) {
    return fetchPage(filtered(await searched(db, access, q), stored), 'companies', { limit, nextToken }, tokens, scope, toCompany);
  }
  if (!access.companyIds)
    return workspaceCompanies(db, { workspaceId: access.workspaceId, ...stored }, { limit, nextToken }, tokens, scope);
  return fetchPage(filtered(visible(db, access), stored), 'companies', { limit, nextToken }, tokens, scope, toCompany);
}

/** Past this many matching terms, a search reads the list's own order (as the clients', clients.repository.ts). */
const COMMON_PREFIX_TERMS = 2000;

/** A search term (`t.term`) in the query's range. */
const termIn =
  ({ from, to }: { from: string; to?: string }) =>
  (eb: ExpressionBuilder<{ t: { term: string } }, 't'>) =>
    to === undefined ? eb('t.term', '>=', from) : eb.and([eb('t.term', '>=', from), eb('t.term', '<', to)]);

/**
 * The companies this access sees with a term in the query's range: when the prefix is common, the list's order read
 * with a probe of `company_search_terms_owner` per company; otherwise the terms as a range of the primary key.
 */
async function searched(db: Kysely<DB>, access: Access, q: string) {
  const range = prefixRange(q);
  if (range === undefined) return visible(db, access).where(sql<boolean>`false`);
  const terms = db.selectFrom('company_search_terms as t').select('t.company_id').where(termIn(range));
  const inWorkspace = terms.where('t.workspace_id', '=', access.workspaceId);
  const counted = await db
    .selectFrom(inWorkspace.limit(COMMON_PREFIX_TERMS).as('m'))
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(counted.n) >= COMMON_PREFIX_TERMS
    ? visible(db, access).where(({ exists }) => exists(terms.where('t.company_id', '=', sql.ref<string>('companies.id'))))
    : visible(db, access).where('companies.id', 'in', inWorkspace);
}

/** Which of the given ids are companies visible to this access. */
export async function existingCompanyIds(db: Kysely<DB>, access: Access, ids: readonly string[]): Promise<Set<string>> {
  const rows = await visible(db, access).clearSelect().select('companies.id').where('companies.id', 'in', nonEmpty(ids)).execute();
  return new Set(rows.map((r) => r.id));
}

const insertCompanyRow = preparedWrite('insert_company', (db, row: FullRow<'companies'>) => db.insertInto('companies').values(row));
const insertTerm = preparedWrite('insert_company_search_term', (db, row: FullRow<'company_search_terms'>) =>
  db.insertInto('company_search_terms').values(row),
);
const deleteTerms = preparedWrite('delete_company_search_terms', (db, p: { workspaceId: string; companyId: string }) =>
  db.deleteFrom('company_search_terms').where('workspace_id', '=', p.workspaceId).where('company_id', '=', p.companyId),
);

/** The company's search terms (its name's), one prepared insert each. */
function writeTerms(work: UnitOfWork, access: Access, company: Company) {
  for (const term of nameTerms(company.name)) {
    work.write(insertTerm(work.db, { workspace_id: access.workspaceId, term, company_id: company.id }));
  }
}

/** A new company; a taken name is its API error. */
export function insertCompany(work: UnitOfWork, access: Access, company: Company): void {
  work.write(
    insertCompanyRow(work.db, {
      id: company.id,
      workspace_id: access.workspaceId,
      name: company.name,
      name_key: nameKeyOf(company),
      fallback_color: company.fallbackColor,
      icon_image_url: company.iconImageUrl ?? null,
      is_placeholder: company.isPlaceholder ? 1 : 0,
      custom_fields: JSON.stringify(company.customFields),
      created_at: company.createdAt,
      updated_at: company.updatedAt,
    }),
    { companies_name_unique: company.name },
  );
  writeTerms(work, access, company);
}

/** Writes a company's changed fields; its search terms too when its name changed. */
export function updateCompany(work: UnitOfWork, access: Access, company: Company, previous: Company): void {
  work.write(
    work.db
      .updateTable('companies')
      .set({
        name: company.name,
        name_key: nameKeyOf(company),
        custom_fields: JSON.stringify(company.customFields),
        updated_at: company.updatedAt,
      })
      .where('workspace_id', '=', access.workspaceId)
      .where('id', '=', company.id),
    { companies_name_unique: company.name },
  );
  if (company.name !== previous.name) {
    work.write(deleteTerms(work.db, { workspaceId: access.workspaceId, companyId: company.id }));
    writeTerms(work, access, company);
  }
}

/** Deletes a company and its memberships (move its clients first: see the service). */
export function deleteCompany(work: UnitOfWork, access: Access, id: string): void {
  work.write(deleteTerms(work.db, { workspaceId: access.workspaceId, companyId: id }));
  work.write(work.db.deleteFrom('client_companies').where('workspace_id', '=', access.workspaceId).where('company_id', '=', id));
  work.write(work.db.deleteFrom('companies').where('workspace_id', '=', access.workspaceId).where('id', '=', id));
}
