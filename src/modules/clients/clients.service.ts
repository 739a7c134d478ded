import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Compilable, Kysely } from 'kysely';
import { writeBatch } from '../../db/batch.js';
import { isForeignKeyViolation, isUniqueViolation } from '../../db/database.js';
import { joinIds, parseObject, splitIds } from '../../db/json.js';
import type { PageTokens } from '../../db/paging.js';
import type { ClientsTable, DB } from '../../db/schema.js';
import { inTransaction } from '../../db/transaction.js';
import type { Access } from '../../lib/access.js';
import { isoAt } from '../../lib/clock.js';
import { errors } from '../../lib/errors.js';
import { fallbackColorFor } from '../../lib/fallback-color.js';
import { type Actor, auditInsert, recordAudit } from '../audit-log/audit-log.writer.js';
import { findCompany } from '../companies/companies.repository.js';
import { createPlaceholderCompany, placeholderCompanyWrites } from '../companies/companies.service.js';
import { type CustomFieldValues, mergeCustomFields, normalizeCustomFields } from '../custom-fields/custom-fields.values.js';
import * as repo from './clients.repository.js';
import type { ClientBody, ClientCreateInput, ClientListFilters, ClientPatchInput, ClientPutInput } from './clients.schemas.js';

export function toClient(row: ClientsTable): ClientBody {
  return {
    id: row.id,
    object: 'client',
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    givenName: row.given_name,
    familyName: row.family_name,
    email: row.email,
    companyId: row.company_id,
    companyIds: splitIds(row.company_ids),
    customFields: parseObject(row.custom_fields),
    fallbackColor: fallbackColorFor(row.id),
    status: row.status,
    creationMethod: row.creation_method,
    ...(row.avatar_image_url ? { avatarImageUrl: row.avatar_image_url } : {}),
    firstLoginDate: row.first_login_date,
    lastLoginDate: row.last_login_date,
    ...(row.invited_by ? { invitedBy: row.invited_by } : {}),
  };
}

const fullName = (givenName: string, familyName: string) => `${givenName} ${familyName}`.trim();

const noSuchCompany = () => errors.invalidField('body.companyId', 'is not a company of this workspace');
/** A placeholder company would lie outside a limited user's companies: the client would vanish from its view. */
const companyRequired = () => errors.invalidField('body.companyId', 'is required: you may only add clients to your companies');

async function requireCompany(db: Kysely<DB>, access: Access, companyId: string) {
  if (!(await findCompany(db, access, companyId))) throw noSuchCompany();
}

function emailTaken(email: string) {
  return errors.conflict(`A client with email "${email}" already exists in this workspace.`);
}

export interface CreateClientOptions {
  sendInvite?: boolean;
  /** Base of invite links. */
  portalUrl: string;
  creationMethod?: ClientsTable['creation_method'];
}

/**
 * Creates a client (in a new placeholder company when none is named), with its audit entries: checks
 * first, then every write in one batch. The foreign key guards a company deleted in between.
 */
export async function createClient(db: Kysely<DB>, access: Access, actor: Actor, input: ClientCreateInput, options: CreateClientOptions): Promise<ClientBody> {
  const fields = input.customFields ? mergeCustomFields({}, await normalizeCustomFields(db, access.workspaceId, 'client', input.customFields)) : {};
  if (input.companyId) await requireCompany(db, access, input.companyId);
  else if (access.companyIds) throw companyRequired();
  const id = randomUUID();
  const at = isoAt(actor.at);
  const email = input.email.trim();
  const givenName = input.givenName.trim();
  const familyName = input.familyName.trim();
  const inviteToken = options.sendInvite ? randomBytes(32).toString('base64url') : undefined;
  const writes: Compilable<unknown>[] = [];
  let companyId = input.companyId;
  if (!companyId) {
    const placeholder = placeholderCompanyWrites(db, actor, fullName(givenName, familyName));
    companyId = placeholder.id;
    writes.push(...placeholder.queries);
  }
  const row: ClientsTable = {
    id,
    workspace_id: access.workspaceId,
    email,
    email_key: email.toLowerCase(),
    given_name: givenName,
    family_name: familyName,
    company_id: companyId,
    company_ids: companyId,
    status: inviteToken ? 'invited' : 'notInvited',
    creation_method: options.creationMethod ?? 'internalUser',
    avatar_image_url: null,
    first_login_date: null,
    last_login_date: null,
    invited_by: inviteToken && actor.actorType === 'internalUser' ? actor.actorId : null,
    invite_token_hash: inviteToken ? createHash('sha256').update(inviteToken).digest('hex') : null,
    custom_fields: JSON.stringify(fields),
    created_at: at,
    updated_at: at,
  };
  writes.push(...repo.clientInserts(db, row));
  writes.push(auditInsert(db, actor, { eventType: 'clientCreated', description: `Client ${email} created`, context: { clientId: id, companyId } }));
  if (inviteToken) writes.push(auditInsert(db, actor, { eventType: 'clientInvited', description: `Client ${email} invited`, context: { clientId: id } }));
  try {
    await writeBatch(db, writes);
  } catch (error) {
    if (isUniqueViolation(error)) throw emailTaken(email);
    if (isForeignKeyViolation(error)) throw noSuchCompany();
    throw error;
  }
  const client = toClient(row);
  return inviteToken ? { ...client, inviteUrl: `${options.portalUrl}/invite/${inviteToken}` } : client;
}

export async function getClient(db: Kysely<DB>, access: Access, id: string): Promise<ClientBody> {
  const row = await repo.findClient(db, access, id);
  if (!row) throw errors.notFound('Client');
  return toClient(row);
}

export async function listClients(db: Kysely<DB>, access: Access, filters: ClientListFilters, tokens: PageTokens) {
  const { rows, nextToken } = await repo.listClients(db, access, filters, tokens, filters);
  return { data: rows.map(toClient), ...(nextToken ? { nextToken } : {}) };
}

interface NextState {
  givenName: string;
  familyName: string;
  /** primary first */
  companyIds: string[];
  customFields: CustomFieldValues;
}

/** Writes what differs between the row and the next state, with clientUpdated / clientCustomFieldsUpdated entries. */
async function applyChanges(trx: Kysely<DB>, access: Access, actor: Actor, row: ClientsTable, next: NextState): Promise<ClientsTable> {
  const previous: Record<string, unknown> = {};
  if (next.givenName !== row.given_name) previous.givenName = row.given_name;
  if (next.familyName !== row.family_name) previous.familyName = row.family_name;
  const companyIds = joinIds(next.companyIds);
  if (companyIds !== row.company_ids) {
    previous.companyId = row.company_id;
    previous.companyIds = splitIds(row.company_ids);
  }
  const customFields = JSON.stringify(next.customFields);
  const fieldsChanged = customFields !== row.custom_fields;
  if (Object.keys(previous).length === 0 && !fieldsChanged) return row;

  const updated: ClientsTable = {
    ...row,
    given_name: next.givenName,
    family_name: next.familyName,
    company_id: next.companyIds[0],
    company_ids: companyIds,
    custom_fields: customFields,
    updated_at: isoAt(actor.at),
  };
  const { given_name, family_name, company_id, custom_fields, updated_at } = updated;
  await repo.updateClient(trx, access.workspaceId, row.id, { given_name, family_name, company_id, company_ids: companyIds, custom_fields, updated_at });
  if ('companyIds' in previous) await repo.setMemberships(trx, access.workspaceId, row.id, next.companyIds);
  if (Object.keys(previous).length > 0) {
    await recordAudit(trx, actor, { eventType: 'clientUpdated', description: `Client ${row.email} updated`, context: { clientId: row.id }, previousAttributes: previous });
  }
  if (fieldsChanged) {
    await recordAudit(trx, actor, {
      eventType: 'clientCustomFieldsUpdated',
      description: `Custom fields of client ${row.email} updated`,
      context: { clientId: row.id },
      previousAttributes: { customFields: parseObject(row.custom_fields) },
    });
  }
  return updated;
}

/** PATCH: merges the given fields; `companyId` moves the client (replacing its primary company). */
export async function patchClient(db: Kysely<DB>, access: Access, actor: Actor, id: string, input: ClientPatchInput): Promise<ClientBody> {
  const changes = input.customFields ? await normalizeCustomFields(db, access.workspaceId, 'client', input.customFields) : undefined;
  return inTransaction(db, async (trx) => {
    const row = await repo.findClient(trx, access, id);
    if (!row) throw errors.notFound('Client');
    let companyIds = splitIds(row.company_ids);
    if (input.companyId !== undefined && input.companyId !== row.company_id) {
      await requireCompany(trx, access, input.companyId);
      companyIds = [input.companyId, ...companyIds.filter((c) => c !== row.company_id && c !== input.companyId)];
    }
    const current = parseObject<CustomFieldValues>(row.custom_fields);
    const updated = await applyChanges(trx, access, actor, row, {
      givenName: input.givenName?.trim() ?? row.given_name,
      familyName: input.familyName?.trim() ?? row.family_name,
      companyIds,
      customFields: changes ? mergeCustomFields(current, changes) : current,
    });
    return toClient(updated);
  });
}

/**
 * PUT: replaces every writable field. Without `companyId` the client is left in a placeholder company
 * of its own: the one it already has when that is its only company, else a new one.
 */
export async function replaceClient(db: Kysely<DB>, access: Access, actor: Actor, id: string, input: ClientPutInput): Promise<ClientBody> {
  const fields = input.customFields ? mergeCustomFields({}, await normalizeCustomFields(db, access.workspaceId, 'client', input.customFields)) : {};
  return inTransaction(db, async (trx) => {
    const row = await repo.findClient(trx, access, id);
    if (!row) throw errors.notFound('Client');
    const givenName = input.givenName.trim();
    const familyName = input.familyName.trim();
    let companyId = input.companyId;
    if (companyId !== undefined) {
      if (companyId !== row.company_id) await requireCompany(trx, access, companyId);
    } else if (access.companyIds) {
      throw companyRequired();
    } else {
      const current = row.company_ids === row.company_id ? await findCompany(trx, access, row.company_id) : undefined;
      companyId = current?.is_placeholder === 1 ? current.id : await createPlaceholderCompany(trx, actor, fullName(givenName, familyName));
    }
    const updated = await applyChanges(trx, access, actor, row, { givenName, familyName, companyIds: [companyId], customFields: fields });
    return toClient(updated);
  });
}

export async function deleteClient(db: Kysely<DB>, access: Access, actor: Actor, id: string) {
  await inTransaction(db, async (trx) => {
    const row = await repo.findClient(trx, access, id);
    if (!row) throw errors.notFound('Client');
    await repo.deleteClient(trx, access.workspaceId, id);
    await recordAudit(trx, actor, { eventType: 'clientDeleted', description: `Client ${row.email} deleted`, context: { clientId: id, email: row.email } });
  });
  return { id, object: 'client', deleted: true as const };
}
