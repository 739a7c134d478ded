import type { ExpressionBuilder, Kysely } from 'kysely';
import { type Page, type PageTokens, fetchPage, pageScope } from '../../../db/paging.js';
import { nonEmpty, objectFields } from '../../../db/rows.js';
import type { ContractTemplatesTable, ContractsTable, DB } from '../../../db/schema.js';
import type { UnitOfWork } from '../../../db/unit-of-work.js';
import type { Access } from '../../../lib/caller.js';
import type { Contract, ContractField, ContractListQuery, ContractTemplate, ContractTemplateListQuery } from './contracts.schemas.js';

/** Contracts' storage: fields as JSON text; a template's counts read with it. */

type TemplateRow = ContractTemplatesTable & {
  requests: number | string;
  submissions: number | string;
  latest_submission_at: string | null;
};

function toTemplate(row: TemplateRow): ContractTemplate {
  const template: ContractTemplate = {
    ...objectFields(row, 'contractTemplate'),
    name: row.name,
    fields: JSON.parse(row.fields) as ContractField[],
    requestsCount: Number(row.requests),
    submissionsCount: Number(row.submissions),
  };
  if (row.file_url !== null) template.fileUrl = row.file_url;
  if (row.latest_submission_at !== null) template.latestSubmissionDate = row.latest_submission_at;
  return template;
}

/** The workspace's templates with their counts (each a lookup of contracts_template_page). */
function templatesWithCounts(db: Kysely<DB>, access: Access) {
  const sent = (eb: ExpressionBuilder<DB, 'contract_templates'>) =>
    eb
      .selectFrom('contracts')
      .where('contracts.workspace_id', '=', access.workspaceId)
      .whereRef('contracts.contract_template_id', '=', 'contract_templates.id');
  return db
    .selectFrom('contract_templates')
    .selectAll('contract_templates')
    .select((eb) => [
      sent(eb)
        .select((e) => e.fn.countAll<number>().as('n'))
        .as('requests'),
      sent(eb)
        .where('contracts.status', '=', 'signed')
        .select((e) => e.fn.countAll<number>().as('n'))
        .as('submissions'),
      sent(eb)
        .select((e) => e.fn.max('contracts.submitted_at').as('at'))
        .as('latest_submission_at'),
    ])
    .where('contract_templates.workspace_id', '=', access.workspaceId);
}

/** Templates are the workspace's: every principal that may read them sees them all. */
export function listTemplates(
  db: Kysely<DB>,
  access: Access,
  query: ContractTemplateListQuery,
  tokens: PageTokens,
): Promise<Page<ContractTemplate>> {
  let q = templatesWithCounts(db, access);
  if (query.name !== undefined) q = q.where('contract_templates.name', '=', query.name);
  const scope = pageScope(access, 'contract_templates', { name: query.name });
  return fetchPage(q, 'contract_templates', query, tokens, scope, (row) => toTemplate(row as TemplateRow));
}

export async function findTemplate(db: Kysely<DB>, access: Access, id: string): Promise<ContractTemplate | undefined> {
  const row = await templatesWithCounts(db, access).where('contract_templates.id', '=', id).executeTakeFirst();
  return row && toTemplate(row as TemplateRow);
}

export function insertTemplate(work: UnitOfWork, access: Access, template: ContractTemplate): void {
  work.write(
    work.db.insertInto('contract_templates').values({
      id: template.id,
      workspace_id: access.workspaceId,
      name: template.name,
      fields: JSON.stringify(template.fields),
      file_url: template.fileUrl ?? null,
      created_at: template.createdAt,
      updated_at: template.updatedAt,
    }),
  );
}

// ---- contracts ----

function toContract(row: ContractsTable): Contract {
  const contract: Contract = {
    ...objectFields(row, 'contract'),
    contractTemplateId: row.contract_template_id,
    name: row.name,
    fields: JSON.parse(row.fields) as ContractField[],
    clientId: row.client_id,
    recipientId: row.client_id,
    companyId: row.company_id,
    status: row.status,
    shareDate: row.created_at,
  };
  if (row.file_url !== null) contract.fileUrl = row.file_url;
  if (row.submitted_at !== null) contract.submissionDate = row.submitted_at;
  return contract;
}

/** The contracts an access sees: a client session, its own; a principal limited to some companies, those sent in them. */
function contractsOf(access: Access) {
  return (eb: ExpressionBuilder<DB, 'contracts'>) => {
    const inWorkspace = eb('contracts.workspace_id', '=', access.workspaceId);
    if (access.clientId) return eb.and([inWorkspace, eb('contracts.client_id', '=', access.clientId)]);
    if (access.companyIds) return eb.and([inWorkspace, eb('contracts.company_id', 'in', nonEmpty(access.companyIds))]);
    return inWorkspace;
  };
}

function visibleContracts(db: Kysely<DB>, access: Access) {
  return db.selectFrom('contracts').selectAll().where(contractsOf(access));
}

/** A page, newest first; each filter has its own index. `recipientId` is `clientId`'s deprecated name. */
export function listContracts(db: Kysely<DB>, access: Access, query: ContractListQuery, tokens: PageTokens): Promise<Page<Contract>> {
  const { contractTemplateId, status } = query;
  const clientId = query.clientId ?? query.recipientId;
  let q = visibleContracts(db, access);
  if (contractTemplateId !== undefined) q = q.where('contracts.contract_template_id', '=', contractTemplateId);
  if (clientId !== undefined) q = q.where('contracts.client_id', '=', clientId);
  if (query.recipientId !== undefined && query.clientId !== undefined) q = q.where('contracts.client_id', '=', query.recipientId);
  if (status !== undefined) q = q.where('contracts.status', '=', status);
  const scope = pageScope(access, 'contracts', { contractTemplateId, clientId, recipientId: query.recipientId, status });
  return fetchPage(q, 'contracts', query, tokens, scope, toContract);
}

export async function findContract(db: Kysely<DB>, access: Access, id: string): Promise<Contract | undefined> {
  const row = await visibleContracts(db, access).where('contracts.id', '=', id).executeTakeFirst();
  return row && toContract(row);
}

/** A contract sent, `sentBy` the caller who sent it. `path`: the request field that named the client (one deleted meanwhile is a 400 naming it). */
export function insertContract(work: UnitOfWork, access: Access, contract: Contract, sentBy: string, path: string): void {
  work.write(
    work.db.insertInto('contracts').values({
      id: contract.id,
      workspace_id: access.workspaceId,
      contract_template_id: contract.contractTemplateId,
      client_id: contract.clientId,
      company_id: contract.companyId,
      name: contract.name,
      fields: JSON.stringify(contract.fields),
      file_url: contract.fileUrl ?? null,
      status: contract.status,
      sent_by: sentBy,
      submitted_at: contract.submissionDate ?? null,
      created_at: contract.createdAt,
      updated_at: contract.updatedAt,
    }),
    { contracts_client_id_fkey: path, contracts_company_id_fkey: path },
  );
}

/** Stores a signed contract's fields, if it is still pending and the access sees it (the caller checked, in its transaction). */
export function signContract(work: UnitOfWork, access: Access, contract: Contract): void {
  work.write(
    work.db
      .updateTable('contracts')
      .set({
        status: 'signed',
        fields: JSON.stringify(contract.fields),
        submitted_at: contract.submissionDate ?? null,
        updated_at: contract.updatedAt,
      })
      .where(contractsOf(access))
      .where('contracts.id', '=', contract.id)
      .where('contracts.status', '=', 'pending'),
  );
}
