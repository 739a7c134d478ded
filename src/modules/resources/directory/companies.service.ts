import type { Database } from '../../../db/database.js';
import { listAs } from '../../../db/paging.js';
import { type UnitOfWork, unitOfWork } from '../../../db/unit-of-work.js';
import type { Caller } from '../../../lib/caller.js';
import { isoAt } from '../../../lib/clock.js';
import { credentialsChanged } from '../../../lib/credential-cache.js';
import { errors, orNotFound } from '../../../lib/errors.js';
import { fallbackColorFor } from '../../../lib/fallback-color.js';
import { recordAudit } from '../../../audit/index.js';
import { newRowId } from '../../../lib/row-id.js';
import * as clients from './clients.repository.js';
import { mergeCustomFields, normalizeCustomFields } from '../custom-fields/index.js';
import * as repo from './companies.repository.js';
import type { Company, CompanyCreate, CompanyUpdate } from './companies.schemas.js';

/** A company as the subject of its audit entries (and the data of their webhooks). */
const companySubject = (company: Company) => ({ object: 'company', id: company.id, data: company, companyId: company.id });

export async function createCompany(database: Database, caller: Caller, input: CompanyCreate): Promise<Company> {
  const { access } = caller;
  // It could never see the company it made: its access is a fixed list of companies.
  if (access.companyIds) throw errors.forbidden('An internal user limited to some companies cannot create companies.');
  const changes = input.customFields ? await normalizeCustomFields(database.db, access, 'company', input.customFields) : {};
  const name = input.name.trim();
  const fields: CompanyFields = {
    name,
    customFields: mergeCustomFields({}, changes),
    fallbackColor: input.fallbackColor,
    ...(input.iconImageUrl ? { iconImageUrl: input.iconImageUrl } : {}),
    isPlaceholder: input.isPlaceholder === true,
  };
  return unitOfWork(database, async (work) => addCompany(work, caller, fields, `Company "${name}" created`));
}

type CompanyFields = Omit<Company, 'id' | 'object' | 'createdAt' | 'updatedAt' | 'fallbackColor'> & { fallbackColor?: string };

/** Adds a new company to the unit of work, with its companyCreated entry. */
function addCompany(work: UnitOfWork, caller: Caller, fields: CompanyFields, description: string, context?: object): Company {
  const id = newRowId();
  const at = isoAt(caller.actor.at);
  const company: Company = {
    id,
    object: 'company',
    createdAt: at,
    updatedAt: at,
    ...fields,
    fallbackColor: fields.fallbackColor ?? fallbackColorFor(id),
  };
  repo.insertCompany(work, caller.access, company);
  recordAudit(work, caller.actor, {
    eventType: 'companyCreated',
    description,
    context: { companyId: id, name: company.name, ...context },
    subject: companySubject(company),
  });
  return company;
}

/** Adds a placeholder company for a client without one (named after the client) to the unit; returns its id. */
export function createPlaceholderCompany(work: UnitOfWork, caller: Caller, name: string): string {
  const fields = { name, customFields: {}, isPlaceholder: true };
  return addCompany(work, caller, fields, `Placeholder company "${name}" created`, { isPlaceholder: true }).id;
}

export async function getCompany(database: Database, caller: Caller, id: string): Promise<Company> {
  return orNotFound(await repo.findCompany(database.db, caller.access, id), 'Company');
}

export const listCompanies = listAs(repo.listCompanies);

export async function updateCompany(database: Database, caller: Caller, id: string, input: CompanyUpdate): Promise<Company> {
  const { access, actor } = caller;
  const changes = input.customFields ? await normalizeCustomFields(database.db, access, 'company', input.customFields) : undefined;
  return unitOfWork(
    database,
    async (work) => {
      const previous = orNotFound(await repo.findCompany(work.db, access, id), 'Company');
      const name = input.name?.trim() ?? previous.name;
      const customFields = changes ? mergeCustomFields(previous.customFields, changes) : previous.customFields;
      const renamed = name !== previous.name;
      const fieldsChanged = JSON.stringify(customFields) !== JSON.stringify(previous.customFields);
      if (!renamed && !fieldsChanged) return previous;
      const company: Company = { ...previous, name, customFields, updatedAt: isoAt(actor.at) };
      repo.updateCompany(work, access, company, previous);
      if (renamed) {
        recordAudit(work, actor, {
          eventType: 'companyUpdated',
          description: `Company "${name}" updated`,
          context: { companyId: id },
          previousAttributes: { name: previous.name },
          subject: companySubject(company),
        });
      }
      if (fieldsChanged) {
        recordAudit(work, actor, {
          eventType: 'companyCustomFieldsUpdated',
          description: `Custom fields of company "${name}" updated`,
          context: { companyId: id, keys: Object.keys(changes ?? {}) },
          previousAttributes: { customFields: previous.customFields },
          subject: companySubject(company),
        });
      }
      return company;
    },
    { transaction: true },
  );
}

/**
 * Deletes a company. Each of its clients that has no other company moves to a new placeholder
 * company; the others just lose this membership (and get a new primary company if this was it).
 */
export async function deleteCompany(database: Database, caller: Caller, id: string) {
  const { access, actor } = caller;
  await unitOfWork(
    database,
    async (work) => {
      const company = orNotFound(await repo.findCompany(work.db, access, id), 'Company');
      const at = isoAt(actor.at);
      for (const client of await clients.clientsOfCompany(work.db, access, id)) {
        const others = client.companyIds.filter((c) => c !== id);
        const companyIds =
          others.length > 0 ? others : [createPlaceholderCompany(work, caller, `${client.givenName} ${client.familyName}`.trim())];
        const primary = client.companyId === id ? companyIds[0] : client.companyId;
        const moved = { ...client, companyId: primary, companyIds: [primary, ...companyIds.filter((c) => c !== primary)], updatedAt: at };
        clients.updateClient(work, access, moved, client);
        recordAudit(work, actor, {
          eventType: 'clientUpdated',
          description: `Client ${client.email} moved out of deleted company "${company.name}"`,
          context: { clientId: client.id },
          previousAttributes: { companyId: client.companyId, companyIds: client.companyIds },
          subject: { object: 'client', id: client.id, data: moved, companyId: moved.companyId },
        });
      }
      repo.deleteCompany(work, access, id);
      work.onCommit(() => credentialsChanged(database)); // client sessions for this company end
      recordAudit(work, actor, {
        eventType: 'companyDeleted',
        description: `Company "${company.name}" deleted`,
        context: { companyId: id, name: company.name },
        subject: companySubject(company),
      });
    },
    { transaction: true },
  );
  return { id, object: 'company', deleted: true as const };
}
