import { randomUUID } from 'node:crypto';
import type { Database } from '../../db/database.js';
import type { Page, PageTokens } from '../../db/paging.js';
import { unitOfWork } from '../../db/unit-of-work.js';
import type { Caller } from '../../lib/caller.js';
import { isoAt } from '../../lib/clock.js';
import { type FieldProblem, errors } from '../../lib/errors.js';
import { existingCompanyIds, visibleClientCompanies } from '../directory/index.js';
import * as repo from './connections.repository.js';
import type { AppConnection, AppConnectionCreate, AppConnectionListQuery } from './connections.schemas.js';
import { getInstall } from './installs.service.js';

const HTTP_URL = /^https?:\/\/[^\s/$.?#][^\s]*$/i;

export async function listConnections(
  database: Database,
  caller: Caller,
  installId: string,
  query: AppConnectionListQuery,
  tokens: PageTokens,
): Promise<Page<AppConnection>> {
  const install = await getInstall(database, caller, installId);
  return repo.listConnections(database.db, caller.access, install.id, query, tokens);
}

/**
 * Connects a manual install's embed or link to a company, or to clients of one company (contract §3):
 * every rule of the connection input, with every failing field named in one 400.
 */
export async function createConnection(
  database: Database,
  caller: Caller,
  installId: string,
  input: AppConnectionCreate,
): Promise<AppConnection> {
  const install = await getInstall(database, caller, installId);
  if (install.type !== 'manual') {
    throw errors.invalidField('params.installId', `is a ${install.type} install: connections belong to manual installs only`);
  }
  const problems: FieldProblem[] = [];
  if (input.type === 'link' && !HTTP_URL.test(input.content))
    problems.push({ path: 'body.content', message: 'must be an http(s) URL for a link' });
  const clientIds = [...new Set((input.clientIds ?? []).map((id) => id.toLowerCase()))];
  const companiesOf =
    clientIds.length > 0 ? await visibleClientCompanies(database.db, caller.access, clientIds) : new Map<string, string[]>();
  (input.clientIds ?? []).forEach((id, index) => {
    if (!companiesOf.has(id.toLowerCase()))
      problems.push({ path: `body.clientIds.${index}`, message: 'is not a client of this workspace' });
  });
  let companyId = input.companyId?.toLowerCase();
  if (companyId !== undefined) {
    if ((await existingCompanyIds(database.db, caller.access, [companyId])).size === 0) {
      problems.push({ path: 'body.companyId', message: 'is not a company of this workspace' });
    }
  } else if (clientIds.length === 0) {
    problems.push({ path: 'body.companyId', message: 'is required when no clientIds are given' });
  } else if (problems.length === 0) {
    const several = clientIds.filter((id) => (companiesOf.get(id) ?? []).length > 1);
    if (several.length > 0) {
      problems.push({ path: 'body.companyId', message: `is required to choose the company: ${several.join(', ')} belong to several` });
    } else {
      companyId = companiesOf.get(clientIds[0])?.[0];
    }
  }
  if (companyId !== undefined && problems.length === 0) {
    (input.clientIds ?? []).forEach((id, index) => {
      if (!(companiesOf.get(id.toLowerCase()) ?? []).includes(companyId as string)) {
        problems.push({
          path: `body.clientIds.${index}`,
          message: `is not in company ${companyId}: all clients must belong to one company`,
        });
      }
    });
  }
  if (problems.length > 0 || companyId === undefined) throw errors.invalidFields(problems);
  const at = isoAt(caller.actor.at);
  const membershipType = input.membershipType ?? (clientIds.length === 0 ? 'company' : clientIds.length === 1 ? 'individual' : 'group');
  const connection: AppConnection = {
    id: randomUUID(),
    object: 'appConnection',
    createdAt: at,
    updatedAt: at,
    type: input.type,
    membershipType,
    clientIds: clientIds.length === 0 ? null : clientIds,
    companyId,
    content: input.content,
    installId: install.id,
    domainMetadata: {
      autoSizeEmbed: input.autoSizeEmbed ?? true,
      companyId,
      ...(input.type === 'embed' ? { embedCode: input.content } : { embedLink: input.content }),
      memberIDs: Object.fromEntries(clientIds.map((id) => [id, true])),
    },
  };
  await unitOfWork(database, async (work) => repo.insertConnection(work, caller.access, connection));
  return connection;
}
