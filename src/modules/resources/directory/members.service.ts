import type { Database } from '../../../db/database.js';
import type { Caller } from '../../../lib/caller.js';
import type { FieldProblem } from '../../../lib/errors.js';
import { visibleClientCompanies } from './clients.repository.js';
import { existingCompanyIds } from './companies.repository.js';

/** Clients (each with the request path that named it) and, optionally, the company they share: ids as the API answers them (lower case, lib/schemas.ts RefId). */
export interface MembersInput {
  readonly clients: readonly { readonly id: string; readonly path: string }[];
  readonly companyId?: string;
  /** The request path of companyId (e.g. `body.companyId`). */
  readonly companyPath: string;
}

export interface Members {
  /** Without repeats, in the order given. */
  readonly clientIds: string[];
  readonly companyId: string;
}

/**
 * The members of something shared with a company or with clients of one company (an app connection, a
 * message or file channel): every client must be one the caller sees, every client in the one company;
 * the company is given, or taken from the clients when they all have only it. Each failing field is
 * added to `problems` by its path; the members are returned only when there is none.
 */
export async function resolveMembers(
  database: Database,
  caller: Caller,
  input: MembersInput,
  problems: FieldProblem[],
): Promise<Members | undefined> {
  const before = problems.length;
  const clientIds = [...new Set(input.clients.map((client) => client.id))];
  const companiesOf =
    clientIds.length > 0 ? await visibleClientCompanies(database.db, caller.access, clientIds) : new Map<string, string[]>();
  for (const { id, path } of input.clients) {
    if (!companiesOf.has(id)) problems.push({ path, message: 'is not a client of this workspace' });
  }
  let companyId = input.companyId;
  if (companyId !== undefined) {
    if ((await existingCompanyIds(database.db, caller.access, [companyId])).size === 0) {
      problems.push({ path: input.companyPath, message: 'is not a company of this workspace' });
    }
  } else if (clientIds.length === 0) {
    problems.push({ path: input.companyPath, message: 'is required when no clients are given' });
  } else if (problems.length === before) {
    const several = clientIds.filter((id) => (companiesOf.get(id) ?? []).length > 1);
    if (several.length > 0) {
      problems.push({ path: input.companyPath, message: `is required to choose the company: ${several.join(', ')} belong to several` });
    } else {
      companyId = companiesOf.get(clientIds[0])?.[0];
    }
  }
  if (companyId !== undefined && problems.length === before) {
    for (const { id, path } of input.clients) {
      if (!(companiesOf.get(id) ?? []).includes(companyId)) {
        problems.push({ path, message: `is not in company ${companyId}: all clients must belong to one company` });
      }
    }
  }
  return problems.length === before && companyId !== undefined ? { clientIds, companyId } : undefined;
}
