import { randomUUID } from 'node:crypto';
import type { Compilable, Kysely } from 'kysely';
import { writeBatch } from '../../db/batch.js';
import { isUniqueViolation } from '../../db/database.js';
import { parseObject, splitIds, joinIds } from '../../db/json.js';
import type { PageRequest, PageTokens } from '../../db/paging.js';
import type { CompaniesTable, DB } from '../../db/schema.js';
import { inTransaction } from '../../db/transaction.js';
import type { Access } from '../../lib/access.js';
import { isoAt } from '../../lib/clock.js';
import { errors } from '../../lib/errors.js';
import { fallbackColorFor } from '../../lib/fallback-color.js';
import { type Actor, auditInsert, recordAudit } from '../audit-log/audit-log.writer.js';
import { type CustomFieldValues, mergeCustomFields, normalizeCustomFields } from '../custom-fields/custom-fields.values.js';
import * as repo from './companies.repository.js';
import type { CompanyBody, CompanyCreateInput, CompanyListFilters, CompanyUpdateInput } from './companies.schemas.js';

export function toCompany(row: CompaniesTable): CompanyBody {
  return {
    id: row.id,
    object: 'company',
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    name: row.name,
    customFields: parseObject(row.custom_fields),
    fallbackColor: row.fallback_color,
    ...(row.icon_image_url ? { iconImageUrl: row.icon_image_url } : {}),
    isPlaceholder: row.is_placeholder === 1,
  };
}

const nameKey = (name: string) => name.trim().toLowerCase();

const duplicateName = (name: string) => errors.conflict(`A company named "${name}" already exists.`);

/** Runs a batch that inserts a company, turning a duplicate name into a 409 that names it. */
async function writeWithName(db: Kysely<DB>, name: string, queries: Compilable<unknown>[]) {
  try {
    await writeBatch(db, queries);
  } catch (error) {
    if (isUniqueViolation(error)) throw duplicateName(name);
    throw error;
  }
}

export async function createCompany(db: Kysely<DB>, access: Access, actor: Actor, input: CompanyCreateInput): Promise<CompanyBody> {
  const changes = input.customFields ? await normalizeCustomFields(db, access.workspaceId, 'company', input.customFields) : {};
  const id = randomUUID();
  const at = isoAt(actor.at);
  const placeholder = input.isPlaceholder === true;
  const name = input.name.trim();
  const row: CompaniesTable = {
    id,
    workspace_id: access.workspaceId,
    name,
    name_key: placeholder ? null : nameKey(name),
    fallback_color: input.fallbackColor ?? fallbackColorFor(id),
    icon_image_url: input.iconImageUrl ?? null,
    is_placeholder: placeholder ? 1 : 0,
    custom_fields: JSON.stringify(mergeCustomFields({}, changes)),
    created_at: at,
    updated_at: at,
  };
  await writeWithName(db, name, [
    repo.companyInsert(db, row),
    auditInsert(db, actor, { eventType: 'companyCreated', description: `Company "${name}" created`, context: { companyId: id, name } }),
  ]);
  return toCompany(row);
}

/** The writes that create a placeholder company for a client without one (named after the client). */
export function placeholderCompanyWrites(db: Kysely<DB>, actor: Actor, name: string) {
  const id = randomUUID();
  const at = isoAt(actor.at);
  const queries: Compilable<unknown>[] = [
    repo.companyInsert(db, {
      id,
      workspace_id: actor.workspaceId,
      name,
      name_key: null,
      fallback_color: fallbackColorFor(id),
      icon_image_url: null,
      is_placeholder: 1,
      custom_fields: '{}',
      created_at: at,
      updated_at: at,
    }),
    auditInsert(db, actor, { eventType: 'companyCreated', description: `Placeholder company "${name}" created`, context: { companyId: id, name, isPlaceholder: true } }),
  ];
  return { id, queries };
}

/** Creates a placeholder company within the caller's transaction; returns its id. */
export async function createPlaceholderCompany(trx: Kysely<DB>, actor: Actor, name: string): Promise<string> {
  const { id, queries } = placeholderCompanyWrites(trx, actor, name);
  await writeBatch(trx, queries);
  return id;
}

export async function getCompany(db: Kysely<DB>, access: Access, id: string): Promise<CompanyBody> {
  const row = await repo.findCompany(db, access, id);
  if (!row) throw errors.notFound('Company');
  return toCompany(row);
}

export async function listCompanies(db: Kysely<DB>, access: Access, filters: CompanyListFilters, tokens: PageTokens) {
  const page: PageRequest = { limit: filters.limit, nextToken: filters.nextToken };
  const { rows, nextToken } = await repo.listCompanies(db, access, filters, tokens, page);
  return { data: rows.map(toCompany), ...(nextToken ? { nextToken } : {}) };
}

export async function updateCompany(db: Kysely<DB>, access: Access, actor: Actor, id: string, input: CompanyUpdateInput): Promise<CompanyBody> {
  const customFieldChanges = input.customFields ? await normalizeCustomFields(db, access.workspaceId, 'company', input.customFields) : undefined;
  return inTransaction(db, async (trx) => {
    const row = await repo.findCompany(trx, access, id);
    if (!row) throw errors.notFound('Company');
    const next: CompaniesTable = { ...row };
    const name = input.name?.trim();
    const renamed = name !== undefined && name !== row.name;
    if (renamed) {
      next.name = name;
      next.name_key = row.is_placeholder ? null : nameKey(name);
    }
    const previousFields = parseObject<CustomFieldValues>(row.custom_fields);
    const fields = customFieldChanges ? mergeCustomFields(previousFields, customFieldChanges) : previousFields;
    const fieldsChanged = JSON.stringify(fields) !== row.custom_fields;
    if (!renamed && !fieldsChanged) return toCompany(row);
    next.custom_fields = JSON.stringify(fields);
    next.updated_at = isoAt(actor.at);
    try {
      await repo.updateCompany(trx, access.workspaceId, id, { name: next.name, name_key: next.name_key, custom_fields: next.custom_fields, updated_at: next.updated_at });
    } catch (error) {
      if (isUniqueViolation(error)) throw duplicateName(next.name);
      throw error;
    }
    if (renamed) {
      await recordAudit(trx, actor, { eventType: 'companyUpdated', description: `Company "${next.name}" updated`, context: { companyId: id }, previousAttributes: { name: row.name } });
    }
    if (fieldsChanged) {
      await recordAudit(trx, actor, {
        eventType: 'companyCustomFieldsUpdated',
        description: `Custom fields of company "${next.name}" updated`,
        context: { companyId: id, keys: Object.keys(customFieldChanges ?? {}) },
        previousAttributes: { customFields: previousFields },
      });
    }
    return toCompany(next);
  });
}

/**
 * Deletes a company. Each of its clients that has no other company moves to a new placeholder
 * company; the others just lose this membership (and a new primary company if this was it).
 */
export async function deleteCompany(db: Kysely<DB>, access: Access, actor: Actor, id: string) {
  await inTransaction(db, async (trx) => {
    const row = await repo.findCompany(trx, access, id);
    if (!row) throw errors.notFound('Company');
    const at = isoAt(actor.at);
    for (const client of await repo.clientsOfCompany(trx, access.workspaceId, id)) {
      let companyIds = splitIds(client.company_ids).filter((c) => c !== id);
      if (companyIds.length === 0) {
        const placeholder = await createPlaceholderCompany(trx, actor, `${client.given_name} ${client.family_name}`.trim());
        await trx.insertInto('client_companies').values({ workspace_id: access.workspaceId, client_id: client.id, company_id: placeholder }).execute();
        companyIds = [placeholder];
      }
      const primary = client.company_id === id ? companyIds[0] : client.company_id;
      await trx
        .updateTable('clients')
        .set({ company_id: primary, company_ids: joinIds([primary, ...companyIds.filter((c) => c !== primary)]), updated_at: at })
        .where('workspace_id', '=', access.workspaceId)
        .where('id', '=', client.id)
        .execute();
    }
    await repo.deleteCompany(trx, access.workspaceId, id);
    await recordAudit(trx, actor, { eventType: 'companyDeleted', description: `Company "${row.name}" deleted`, context: { companyId: id, name: row.name } });
  });
  return { id, object: 'company', deleted: true as const };
}
