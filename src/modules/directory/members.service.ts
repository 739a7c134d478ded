import type { Database } from '../../db/database.js';
import type { Caller } from '../../lib/caller.js';
import { type FieldProblem, errors } from '../../lib/errors.js';
import { visibleClientCompanies } from './clients.repository.js';
import { existingCompanyIds } from './companies.repository.js';

/** Clients (each with the request path that named it) and, optionally, the company they share. */
export interface MembersInput {
  readonly clients: readonly { readonly id: string; readonly path: string }[];
  readonly companyId?: string;
  /** The request path of companyId (e.g. `body.companyId`). */
  readonly companyPath: string;
}

export interface Members {
  /** Lower-cased, without repeats, in the order given. */
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
  const clientIds = [...new Set(input.clients.map((client) => client.id.toLowerCase()))];
  const companiesOf =
    clientIds.length > 0 ? await visibleClientCompanies(database.db, caller.access, clientIds) : new Map<string, string[]>();
  for (const { id, path } of input.clients) {
    if (!companiesOf.has(id.toLowerCase())) problems.push({ path, message: 'is not a client of this workspace' });
  }
  let companyId = input.companyId?.toLowerCase();
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
      if (!(companiesOf.get(id.toLowerCase()) ?? []).includes(companyId)) {
        problems.push({ path, message: `is not in company ${companyId}: all clients must belong to one company` });
      }
    }
  }
  return problems.length === before && companyId !== undefined ? { clientIds, companyId } : undefined;
}

/** A channel's membership as the SDK's create bodies give it (message and file channels alike). */
export interface ChannelMembershipInput {
  readonly membershipType: 'individual' | 'group' | 'company';
  readonly memberIds?: readonly string[];
  readonly clientId?: string;
  readonly companyId?: string;
  /** deprecated: an individual channel's clientId, a company channel's companyId */
  readonly membershipEntityId?: string;
}

/**
 * The members of a new channel (resolved as app connections' are); every failing field named in one 400:
 * an individual channel's client (`clientId`, or the deprecated `membershipEntityId`), a group's
 * `memberIds`, a company channel's company (`memberIds` is ignored for individual and company channels, as the SDK says).
 */
export async function resolveChannelMembers(database: Database, caller: Caller, input: ChannelMembershipInput): Promise<Members> {
  const problems: FieldProblem[] = [];
  const clients = channelClientsOf(input, problems);
  const company = channelCompanyOf(input, problems);
  if (input.membershipType === 'company' && company.companyId === undefined) {
    problems.push({ path: 'body.companyId', message: 'is required for a company channel' });
  }
  if (problems.length > 0) throw errors.invalidFields(problems);
  const members = await resolveMembers(database, caller, { clients, ...company }, problems);
  if (problems.length > 0 || members === undefined) throw errors.invalidFields(problems);
  return members;
}

/** The clients a new channel is for, each with the path that named it. */
function channelClientsOf(input: ChannelMembershipInput, problems: FieldProblem[]) {
  if (input.membershipType === 'group') {
    if (input.memberIds === undefined) problems.push({ path: 'body.memberIds', message: 'is required for a group channel' });
    return (input.memberIds ?? []).map((id, index) => ({ id, path: `body.memberIds.${index}` }));
  }
  if (input.membershipType === 'company') return [];
  if (
    input.clientId !== undefined &&
    input.membershipEntityId !== undefined &&
    input.clientId.toLowerCase() !== input.membershipEntityId.toLowerCase()
  ) {
    problems.push({
      path: 'body.membershipEntityId',
      message: 'is deprecated and names another client than clientId: give clientId alone',
    });
    return [];
  }
  if (input.clientId !== undefined) return [{ id: input.clientId, path: 'body.clientId' }];
  if (input.membershipEntityId !== undefined) return [{ id: input.membershipEntityId, path: 'body.membershipEntityId' }];
  problems.push({ path: 'body.clientId', message: 'is required for an individual channel' });
  return [];
}

/** A company channel's company: `companyId`, or the deprecated `membershipEntityId`. */
function channelCompanyOf(input: ChannelMembershipInput, problems: FieldProblem[]): { companyId?: string; companyPath: string } {
  if (input.membershipType !== 'company' || input.membershipEntityId === undefined)
    return { companyId: input.companyId, companyPath: 'body.companyId' };
  if (input.companyId !== undefined && input.companyId.toLowerCase() !== input.membershipEntityId.toLowerCase()) {
    problems.push({
      path: 'body.membershipEntityId',
      message: 'is deprecated and names another company than companyId: give companyId alone',
    });
  }
  return input.companyId !== undefined
    ? { companyId: input.companyId, companyPath: 'body.companyId' }
    : { companyId: input.membershipEntityId, companyPath: 'body.membershipEntityId' };
}
