import { randomUUID } from 'node:crypto';
import { entriesAbout, recordAudit } from '../../../audit/index.js';
import type { Database } from '../../../db/database.js';
import { listAs } from '../../../db/paging.js';
import { unitOfWork } from '../../../db/unit-of-work.js';
import { type Caller, ownUserOf, workspaceAccess } from '../../../lib/caller.js';
import { isoAt } from '../../../lib/clock.js';
import { type FieldProblem, errors, orNotFound } from '../../../lib/errors.js';
import type { PdfDocument } from '../../../lib/pdf.js';
import { newRowId } from '../../../lib/row-id.js';
import { findClient, findCompany, resolveMembers } from '../directory/index.js';
import { documentBrand } from '../workspaces/index.js';
import { type ContractParties, contractFileName, contractPdf } from './contract-pdf.js';
import * as repo from './contracts.repository.js';
import {
  type Contract,
  type ContractField,
  type ContractSend,
  type ContractSign,
  type ContractTemplate,
  type ContractTemplateCreate,
  VariableValues,
} from './contracts.schemas.js';

export const listContractTemplates = listAs(repo.listTemplates);
export const listContracts = listAs(repo.listContracts);

export async function getContractTemplate(database: Database, caller: Caller, id: string): Promise<ContractTemplate> {
  return orNotFound(await repo.findTemplate(database.db, caller.access, id), 'Contract template');
}

export async function getContract(database: Database, caller: Caller, id: string): Promise<Contract> {
  return orNotFound(await repo.findContract(database.db, caller.access, id), 'Contract');
}

/** Whether a value is what its field's type asks for: the rule broken, or undefined. */
function valueProblem(field: ContractField, value: string): string | undefined {
  if (field.type === 'date') {
    const valid = /^\d{4}-\d{2}-\d{2}$/.test(value) && new Date(`${value}T00:00:00Z`).toISOString().startsWith(value);
    return valid ? undefined : 'must be a date (YYYY-MM-DD)';
  }
  if (field.type !== 'text' && !/\S/.test(value)) return 'must not be only white space';
  return undefined;
}

/**
 * Fills the fields of one input type from `values` (field id → value): every such field that is not optional
 * gets a value, none is given for another field, each value of its field's type. Problems are named under
 * `path`. Answers the fields with the values set.
 */
function fill(
  fields: readonly ContractField[],
  inputType: 'client' | 'variable',
  values: Record<string, string>,
  path: string,
  problems: FieldProblem[],
): ContractField[] {
  const byId = new Map(fields.map((field) => [field.id, field]));
  for (const [id, value] of Object.entries(values)) {
    const field = byId.get(id);
    if (!field) problems.push({ path: `${path}.${id}`, message: 'is not a field of this contract' });
    else if (field.inputType !== inputType)
      problems.push({ path: `${path}.${id}`, message: `is a ${field.inputType} field, not a ${inputType} one` });
    else if (value !== '') {
      const problem = valueProblem(field, value);
      if (problem) problems.push({ path: `${path}.${id}`, message: problem });
    }
  }
  return fields.map((field) => {
    if (field.inputType !== inputType) return field;
    const value = values[field.id] ?? '';
    if (value === '') {
      if (!field.isOptional) problems.push({ path: `${path}.${field.id}`, message: 'is required' });
      return field;
    }
    return { ...field, value };
  });
}

/** variableValues as given: an object, or its JSON text (as the SDK declares it), held to the object's rules (lengths, text). */
async function variableValuesOf(given: ContractSend['variableValues'], problems: FieldProblem[]): Promise<Record<string, string>> {
  if (given === undefined) return {};
  if (typeof given !== 'string') return given;
  const rule = 'must be a JSON object of field id → string';
  if (given.trim() === '') return {};
  try {
    const parsed: unknown = JSON.parse(given);
    if (
      typeof parsed === 'object' &&
      parsed !== null &&
      !Array.isArray(parsed) &&
      Object.values(parsed).every((v) => typeof v === 'string')
    ) {
      // Its problems are those of the values as given (the contract is then refused): no "is required" besides.
      // TypeBox's checker, loaded by the first contract sent with its values as text (lib/validate.ts).
      const { schemaProblems } = await import('../../../lib/validate.js');
      problems.push(...schemaProblems(VariableValues, parsed, 'body.variableValues'));
      return parsed as Record<string, string>;
    }
  } catch {
    // falls through to the problem
  }
  problems.push({ path: 'body.variableValues', message: rule });
  return {};
}

/** A contract template (admin surface and `portal contract-templates create`; the specification has no event for it). */
export async function createContractTemplate(database: Database, caller: Caller, input: ContractTemplateCreate): Promise<ContractTemplate> {
  const problems: FieldProblem[] = [];
  const seen = new Set<string>();
  const fields: ContractField[] = input.fields.map((field, i) => {
    const id = field.id ?? randomUUID();
    if (seen.has(id)) problems.push({ path: `body.fields.${i}.id`, message: 'is the id of another field of the template' });
    seen.add(id);
    if (field.inputType === 'fixed' && field.value === undefined)
      problems.push({ path: `body.fields.${i}.value`, message: 'is required on a fixed field' });
    if (field.inputType !== 'fixed' && field.value !== undefined)
      problems.push({ path: `body.fields.${i}.value`, message: 'is given only on a fixed field' });
    const out: ContractField = {
      id,
      type: field.type,
      inputType: field.inputType,
      isOptional: field.isOptional ?? false,
      page: field.page ?? 1,
    };
    if (field.label !== undefined) out.label = field.label;
    if (field.value !== undefined) out.value = field.value;
    return out;
  });
  if (problems.length > 0) throw errors.invalidFields(problems);
  const at = isoAt(caller.actor.at);
  const template: ContractTemplate = {
    id: newRowId(),
    object: 'contractTemplate',
    name: input.name,
    fields,
    ...(input.fileUrl === undefined ? {} : { fileUrl: input.fileUrl }),
    requestsCount: 0,
    submissionsCount: 0,
    createdAt: at,
    updatedAt: at,
  };
  await unitOfWork(database, async (work) => repo.insertTemplate(work, caller.access, template));
  return template;
}

/**
 * POST /v1/contracts: a contract from a template to a client the caller sees (in companyId, which may be left
 * out when the client has one company), the template's variable fields filled from variableValues:
 * contractRequested. Every failing field in one 400; nothing is written then.
 */
export async function sendContract(database: Database, caller: Caller, input: ContractSend): Promise<Contract> {
  const problems: FieldProblem[] = [];
  const clientId = input.clientId ?? input.recipientId;
  const clientPath = input.clientId !== undefined ? 'body.clientId' : 'body.recipientId';
  if (clientId === undefined) problems.push({ path: 'body.clientId', message: 'is required: the client receiving the contract' });
  const [template, members] = await Promise.all([
    repo.findTemplate(database.db, caller.access, input.contractTemplateId),
    clientId === undefined
      ? undefined
      : resolveMembers(
          database,
          caller,
          { clients: [{ id: clientId, path: clientPath }], companyId: input.companyId, companyPath: 'body.companyId' },
          problems,
        ),
  ]);
  if (!template) problems.push({ path: 'body.contractTemplateId', message: 'is not a contract template of this workspace' });
  const values = await variableValuesOf(input.variableValues, problems);
  const fields = template ? fill(template.fields, 'variable', values, 'body.variableValues', problems) : [];
  if (problems.length > 0 || !template || !members) throw errors.invalidFields(problems);

  const at = isoAt(caller.actor.at);
  const contract: Contract = {
    id: newRowId(),
    object: 'contract',
    contractTemplateId: template.id,
    name: template.name,
    fields,
    ...(template.fileUrl === undefined ? {} : { fileUrl: template.fileUrl }),
    clientId: members.clientIds[0],
    recipientId: members.clientIds[0],
    companyId: members.companyId,
    status: 'pending',
    shareDate: at,
    createdAt: at,
    updatedAt: at,
  };
  // The sender is the session's own user (the request names no sender), else the API key.
  const sentBy = caller.actor.actorId ?? caller.actor.apiKeyRef ?? 'system';
  await unitOfWork(database, async (work) => {
    repo.insertContract(work, caller.access, contract, sentBy, clientPath);
    recordAudit(work, caller.actor, {
      eventType: 'contractRequested',
      description: `Contract "${contract.name}" sent to client ${contract.clientId}`,
      context: { contractId: contract.id, contractTemplateId: template.id, clientId: contract.clientId },
      subject: { object: 'contract', id: contract.id, data: contract, companyId: contract.companyId },
    });
  });
  return contract;
}

/**
 * POST /v1/contracts/{id}/sign: the client it was sent to signs it (as itself; anyone else who sees it:
 * 403), once (409 when signed), with a value for each field it fills: contractCompleted.
 */
export async function signContract(database: Database, caller: Caller, id: string, input: ContractSign): Promise<Contract> {
  return unitOfWork(
    database,
    async (work) => {
      const previous = orNotFound(await repo.findContract(work.db, caller.access, id), 'Contract');
      const own = ownUserOf(caller);
      if (own?.type !== 'client' || own.id !== previous.clientId) {
        throw errors.forbidden('Only the client a contract was sent to signs it, as itself (its session, or signed in to the portal).');
      }
      if (previous.status === 'signed') throw errors.conflict(`Contract ${previous.id} is already signed.`);
      const problems: FieldProblem[] = [];
      const fields = fill(previous.fields, 'client', input.values, 'body.values', problems);
      if (problems.length > 0) throw errors.invalidFields(problems);
      const at = isoAt(caller.actor.at);
      const contract: Contract = { ...previous, fields, status: 'signed', submissionDate: at, updatedAt: at };
      repo.signContract(work, caller.access, contract);
      recordAudit(work, caller.actor, {
        eventType: 'contractCompleted',
        description: `Contract "${contract.name}" signed by client ${contract.clientId}`,
        context: { contractId: contract.id, contractTemplateId: contract.contractTemplateId, clientId: contract.clientId },
        subject: { object: 'contract', id: contract.id, data: contract, companyId: contract.companyId },
      });
      return contract;
    },
    { transaction: true },
  );
}

/** The most entries of its audit trail a contract's document lists (its downloads add to it). */
const TRAIL_MAX = 500;

/**
 * A signed contract the caller sees as a PDF (contractDownloaded): the same contracts as GET /contracts/{id}.
 * One not signed yet is a 409: its document is the signed one. The signer and company are read
 * workspace-wide (who sees the contract sees whom it was sent to).
 */
export async function contractDocument(database: Database, caller: Caller, id: string): Promise<PdfDocument> {
  const contract = orNotFound(await repo.findContract(database.db, caller.access, id), 'Contract');
  if (contract.status !== 'signed') {
    throw errors.conflict(`Contract ${contract.id} is not signed yet: its document can be downloaded once the client has signed it.`);
  }
  const workspace = workspaceAccess(caller.access.workspaceId);
  const [brand, client, company, trail] = await Promise.all([
    documentBrand(database, caller),
    findClient(database.db, workspace, contract.clientId),
    findCompany(database.db, workspace, contract.companyId),
    entriesAbout(database.db, caller.access, 'contract', contract.id, TRAIL_MAX),
  ]);
  const parties: ContractParties = {
    brand,
    signer: client ? { name: `${client.givenName} ${client.familyName}`, email: client.email } : { name: contract.clientId, email: '' },
    trail,
  };
  if (company && !company.isPlaceholder) parties.company = { name: company.name };
  const stream = await contractPdf(contract, parties);
  await unitOfWork(database, async (work) => {
    recordAudit(work, caller.actor, {
      eventType: 'contractDownloaded',
      description: `Contract "${contract.name}" downloaded as a PDF`,
      context: { contractId: contract.id, contractTemplateId: contract.contractTemplateId, clientId: contract.clientId },
      subject: { object: 'contract', id: contract.id, data: contract, companyId: contract.companyId },
    });
  });
  return { fileName: contractFileName(contract), stream };
}
