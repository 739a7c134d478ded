import type { Database } from '../../../db/database.js';
import type { Page, PageTokens } from '../../../db/paging.js';
import { unitOfWork } from '../../../db/unit-of-work.js';
import type { Caller } from '../../../lib/caller.js';
import { isoAt } from '../../../lib/clock.js';
import { type FieldProblem, errors } from '../../../lib/errors.js';
import { newRowId } from '../../../lib/row-id.js';
import { resolveMembers } from '../directory/index.js';
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
  const members = await resolveMembers(
    database,
    caller,
    {
      clients: (input.clientIds ?? []).map((id, index) => ({ id, path: `body.clientIds.${index}` })),
      companyId: input.companyId,
      companyPath: 'body.companyId',
    },
    problems,
  );
  if (problems.length > 0 || members === undefined) throw errors.invalidFields(problems);
  const { clientIds, companyId } = members;
  const at = isoAt(caller.actor.at);
  const membershipType = input.membershipType ?? (clientIds.length === 0 ? 'company' : clientIds.length === 1 ? 'individual' : 'group');
  const connection: AppConnection = {
    id: newRowId(),
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
