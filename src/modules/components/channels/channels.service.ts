import type { Database } from '../../../db/database.js';
import type { Page, PageTokens } from '../../../db/paging.js';
import { type UnitOfWork, unitOfWork } from '../../../db/unit-of-work.js';
import type { Caller } from '../../../lib/caller.js';
import { isoAt } from '../../../lib/clock.js';
import { type FieldProblem, errors, orNotFound } from '../../../lib/errors.js';
import { newRowId } from '../../../lib/row-id.js';
import { type Members, resolveMembers, visibleClientCompanies } from '../../resources/directory/index.js';
import { findInternalUser } from '../../resources/internal-users/index.js';
import * as repo from './channels.repository.js';
import type { FileChannelListQuery, MessageChannelCreate, MessageChannelListQuery } from './channels.schemas.js';

const NAME = { message: 'Message channel', file: 'File channel' } as const;

/**
 * Creates a channel for one client, clients of one company or a company (resolved as app connections are:
 * every failing field named in one 400). `record` adds what the family records with it (its audit entry) to
 * the same unit of work.
 */
export async function createChannel<K extends repo.ChannelKind>(
  database: Database,
  caller: Caller,
  kind: K,
  input: MessageChannelCreate,
  record?: (work: UnitOfWork, channel: repo.Channel<K>) => void,
): Promise<repo.Channel<K>> {
  const members = await resolveChannelMembers(database, caller, input);
  return unitOfWork(database, async (work) => {
    const channel = repo.insertChannel(work, caller.access, kind, {
      id: newRowId(),
      membershipType: input.membershipType,
      companyId: members.companyId,
      clientIds: members.clientIds,
      at: isoAt(caller.actor.at),
    });
    record?.(work, channel);
    return channel;
  });
}

/** The `memberId` filter as the repository applies it: a client of the workspace, an internal user's companies, or nobody. */
async function memberFilter(database: Database, caller: Caller, id: string): Promise<repo.MemberFilter> {
  const [clients, user] = await Promise.all([
    visibleClientCompanies(database.db, caller.access, [id]),
    findInternalUser(database.db, caller.access, id),
  ]);
  if (clients.has(id)) return { kind: 'client', id };
  if (user) return { kind: 'internalUser', companyIds: user.isClientAccessLimited ? user.companyAccessList : null };
  return { kind: 'unknown' };
}

/**
 * A page of the channels the caller sees, newest first (message channels by their last activity with `orderBy`),
 * filtered as the SDK's listMessageChannels and listFileChannels ask.
 */
export async function listChannels<K extends repo.ChannelKind>(
  database: Database,
  caller: Caller,
  kind: K,
  query: FileChannelListQuery & Pick<MessageChannelListQuery, 'orderBy'>,
  tokens: PageTokens,
): Promise<Page<repo.Channel<K>>> {
  const { limit, nextToken, membershipType, orderBy } = query;
  // The SDK sends `clientId` and the deprecated `membershipEntityId` (the one given filters, clientId when both are);
  // empty filters are dropped before (the request guards); ids come in lower case (lib/schemas.ts RefId).
  const clientId = query.clientId ?? query.membershipEntityId;
  const { companyId, memberId } = query;
  const member = memberId === undefined ? undefined : await memberFilter(database, caller, memberId);
  return repo.listChannels(
    database.db,
    caller.access,
    kind,
    { membershipType, clientId, companyId, member, memberId, byActivity: kind === 'message' && orderBy === 'lastMessageDate' },
    { limit, nextToken },
    tokens,
  );
}

/** The channel, if the caller sees it (a group's memberIds without the clients deleted since); a 404 otherwise. */
export async function getChannel<K extends repo.ChannelKind>(
  database: Database,
  caller: Caller,
  kind: K,
  id: string,
): Promise<repo.Channel<K>> {
  return orNotFound(await repo.findChannel(database.db, caller.access, kind, id, true), NAME[kind]);
}

/**
 * Deletes a channel the caller sees (404 otherwise), in one transaction: `clear` first queues what the family
 * deletes with it (its contents, its audit entry), then the channel and its member rows go. The channel as it was.
 */
export async function deleteChannel<K extends repo.ChannelKind>(
  database: Database,
  caller: Caller,
  kind: K,
  id: string,
  clear: (work: UnitOfWork, channel: repo.Channel<K>) => Promise<void>,
): Promise<repo.Channel<K>> {
  return unitOfWork(
    database,
    async (work) => {
      const channel = orNotFound(await repo.findChannel(work.db, caller.access, kind, id, true), NAME[kind]);
      await clear(work, channel);
      repo.deleteChannel(work, caller.access, kind, channel.id);
      return channel;
    },
    { transaction: true },
  );
}

/**
 * A page of a channel's messages or files, `read` given the channel's id; a channel the caller does not see is a 404,
 * before any 400 of the read (its token, its filters). A caller who sees every channel of the workspace reads the page
 * first: an item proves its channel (a foreign key, and a channel's items go with it), so only an empty or refused page
 * asks whether the channel is there, and most pages take one query, not two. Any other caller is checked first.
 */
export async function channelPage<T>(
  database: Database,
  caller: Caller,
  kind: repo.ChannelKind,
  channelId: string,
  read: (channelId: string) => Promise<Page<T>>,
): Promise<Page<T>> {
  const { access } = caller;
  const visible = async () => orNotFound(await repo.findChannelRow(database.db, access, kind, channelId), NAME[kind]);
  if (access.companyIds || access.clientId) return read((await visible()).id);
  const listed = await read(channelId).catch((error: Error) => error);
  if (!(listed instanceof Error) && listed.data.length > 0) return listed;
  await visible();
  if (listed instanceof Error) throw listed;
  return listed;
}

/** The channel, if the caller sees it, its memberIds as stored: what a send or an upload checks its sender against. */
export function findVisibleChannel<K extends repo.ChannelKind>(
  database: Database,
  caller: Caller,
  kind: K,
  id: string,
): Promise<repo.Channel<K> | undefined> {
  return repo.findChannel(database.db, caller.access, kind, id, false);
}

/** A channel's membership as the SDK's create bodies give it (message and file channels alike). */
interface ChannelMembershipInput {
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
async function resolveChannelMembers(database: Database, caller: Caller, input: ChannelMembershipInput): Promise<Members> {
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
  if (input.clientId !== undefined && input.membershipEntityId !== undefined && input.clientId !== input.membershipEntityId) {
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
  if (input.companyId !== undefined && input.companyId !== input.membershipEntityId) {
    problems.push({
      path: 'body.membershipEntityId',
      message: 'is deprecated and names another company than companyId: give companyId alone',
    });
  }
  return input.companyId !== undefined
    ? { companyId: input.companyId, companyPath: 'body.companyId' }
    : { companyId: input.membershipEntityId, companyPath: 'body.membershipEntityId' };
}
