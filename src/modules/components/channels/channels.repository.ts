import type { ExpressionBuilder, Kysely } from 'kysely';
import { type Page, type PageRequest, type PageTokens, fetchPage, pageScope } from '../../../db/paging.js';
import { preparedQuery } from '../../../db/prepared.js';
import { joinIds, nonEmpty, splitIds } from '../../../db/rows.js';
import type { DB, FileChannelsTable, MessageChannelsTable } from '../../../db/schema.js';
import type { UnitOfWork } from '../../../db/unit-of-work.js';
import type { Access } from '../../../lib/caller.js';
import type { FileChannel, MessageChannel } from './channels.schemas.js';

/** Message channels and file channels: two tables of one shape (each with a member table), read and written here. */
export type ChannelKind = 'message' | 'file';
interface Kinds {
  message: { row: MessageChannelsTable; channel: MessageChannel };
  file: { row: FileChannelsTable; channel: FileChannel };
}
export type ChannelRow<K extends ChannelKind> = Kinds[K]['row'];
export type Channel<K extends ChannelKind> = Kinds[K]['channel'];

const TABLES = {
  message: { channels: 'message_channels', members: 'message_channel_members', object: 'messageChannel', list: 'message-channels' },
  file: { channels: 'file_channels', members: 'file_channel_members', object: 'fileChannel', list: 'file-channels' },
} as const;

// Queries are written once against the shared columns, typed as the message tables' (the file tables have the
// same columns, and a few of their own): `c` is the channel table, `m` its member table.
const channelsAs = (kind: ChannelKind) => `${TABLES[kind].channels} as c` as 'message_channels as c';
const membersAs = (kind: ChannelKind) => `${TABLES[kind].members} as m` as 'message_channel_members as m';

/**
 * A channel as the API serves it: what a channel of its type does not have is left out, never null (assigned only when
 * set: a spread object per optional field made each a slow object to build and to serialize, as files' did).
 */
function toChannel<K extends ChannelKind>(kind: K, row: ChannelRow<K>): Channel<K> {
  const memberIds = splitIds(row.member_ids);
  const entityId = row.membership_type === 'individual' ? row.client_id : row.membership_type === 'company' ? row.company_id : null;
  const lastMessageDate = kind === 'message' ? (row as MessageChannelsTable).last_message_date : null;
  const rootPermissions = kind === 'file' ? (row as FileChannelsTable).root_client_permissions : null;
  const channel: Record<string, unknown> = {
    id: row.id,
    object: TABLES[kind].object,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    membershipType: row.membership_type,
    companyId: row.company_id,
  };
  if (row.client_id !== null) channel.clientId = row.client_id;
  if (entityId !== null) channel.membershipEntityId = entityId;
  if (memberIds.length > 0) channel.memberIds = memberIds;
  if (lastMessageDate !== null) channel.lastMessageDate = lastMessageDate;
  if (rootPermissions !== null) channel.clientPermissions = rootPermissions === 'read_write' ? 'read-write' : 'read-only';
  return channel as Channel<K>;
}

/** Channels a client belongs to: it is a member (individual, group), or the channel is one of its companies' (company). */
const clientBelongs =
  (kind: ChannelKind, workspaceId: string, clientId: string) =>
  ({ or, and, eb, exists, selectFrom }: ExpressionBuilder<DB & { c: MessageChannelsTable }, 'c'>) =>
    or([
      exists(selectFrom(membersAs(kind)).select('m.client_id').whereRef('m.channel_id', '=', 'c.id').where('m.client_id', '=', clientId)),
      and([
        eb('c.membership_type', '=', 'company'),
        eb(
          'c.company_id',
          'in',
          selectFrom('client_companies as cc')
            .select('cc.company_id')
            .where('cc.workspace_id', '=', workspaceId)
            .where('cc.client_id', '=', clientId),
        ),
      ]),
    ]);

/** Channels this access sees: its workspace's; a principal limited to some companies only theirs; a client session only its own. */
function visibleChannels(db: Kysely<DB>, kind: ChannelKind, access: Access) {
  let q = db.selectFrom(channelsAs(kind)).selectAll('c').where('c.workspace_id', '=', access.workspaceId);
  if (access.companyIds) q = q.where('c.company_id', 'in', nonEmpty(access.companyIds));
  if (access.clientId) q = q.where(clientBelongs(kind, access.workspaceId, access.clientId));
  return q;
}

/** The ids of the channels of this kind this access sees: the scope a write on their contents keeps in its WHERE. */
export function visibleChannelIds(db: Kysely<DB>, access: Access, kind: ChannelKind) {
  return visibleChannels(db, kind, access).clearSelect().select('c.id');
}

/** The `memberId` filter, resolved by the service: a client, the companies an internal user sees (null: all), or nobody known. */
export type MemberFilter =
  | { kind: 'client'; id: string }
  | { kind: 'internalUser'; companyIds: readonly string[] | null }
  | { kind: 'unknown' };

export interface ChannelFilters {
  membershipType?: MessageChannel['membershipType'];
  clientId?: string;
  /** file channels: only those of this company */
  companyId?: string;
  member?: MemberFilter;
  /** The memberId as given: part of the page token's scope. */
  memberId?: string;
  /** Message channels in the inbox's order: newest activity first (activity_key), rather than newest created. */
  byActivity?: boolean;
}

/** The inbox's order (message channels): `activity_key`, with the id for ties; a page token is a position in it. */
const BY_ACTIVITY = { descendingBy: 'c.activity_key', id: 'c.id', rowKey: 'activity_key' } as const;

/** A message channel's place in the inbox: its last message's date, or below every such date its creation's. */
export const activityKey = (lastMessageDate: string | null, createdAt: string) =>
  lastMessageDate === null ? `c${createdAt}` : `m${lastMessageDate}`;

/**
 * A page of the channels this access sees, newest first. `membershipType` and `clientId` range over their
 * own index; the access, `companyId` and `memberId` are conditions over the rows of that range (as app connections' clientId).
 * In the inbox's order (`byActivity`), a page is a range of `message_channels_activity_page`, the filters conditions on it.
 */
export async function listChannels<K extends ChannelKind>(
  db: Kysely<DB>,
  access: Access,
  kind: K,
  filters: ChannelFilters,
  page: PageRequest,
  tokens: PageTokens,
): Promise<Page<Channel<K>>> {
  const { membershipType, clientId, companyId, member } = filters;
  let q = visibleChannels(db, kind, access);
  if (membershipType !== undefined) q = q.where('c.membership_type', '=', membershipType);
  if (clientId !== undefined) q = q.where('c.client_id', '=', clientId);
  if (companyId !== undefined) q = q.where('c.company_id', '=', companyId);
  if (member?.kind === 'client') q = q.where(clientBelongs(kind, access.workspaceId, member.id));
  else if (member?.kind === 'internalUser' && member.companyIds !== null) q = q.where('c.company_id', 'in', nonEmpty(member.companyIds));
  else if (member?.kind === 'unknown') q = q.where(({ lit }) => lit(false));
  const byActivity = filters.byActivity === true || undefined;
  const scope = pageScope(access, TABLES[kind].list, { membershipType, clientId, companyId, memberId: filters.memberId, byActivity });
  const found = await fetchPage(q, byActivity ? BY_ACTIVITY : 'c', page, tokens, scope, (row) => toChannel(kind, row as ChannelRow<K>));
  await pruneDeletedMembers(db, kind, found.data);
  return found;
}

/**
 * A group's memberIds as stored, less the clients deleted since: their member rows went with them (an
 * individual channel goes with its client, a company channel with its company). One query for a page.
 */
async function pruneDeletedMembers(db: Kysely<DB>, kind: ChannelKind, channels: (MessageChannel | FileChannel)[]): Promise<void> {
  const groups = channels.filter((channel) => channel.membershipType === 'group');
  if (groups.length === 0) return;
  const rows = await db
    .selectFrom(membersAs(kind))
    .select(['m.channel_id', 'm.client_id'])
    .where(
      'm.channel_id',
      'in',
      groups.map((group) => group.id),
    )
    .execute();
  const live = new Set(rows.map((row) => `${row.channel_id}/${row.client_id}`));
  for (const group of groups) {
    const memberIds = (group.memberIds ?? []).filter((id) => live.has(`${group.id}/${id}`));
    if (memberIds.length > 0) group.memberIds = memberIds;
    else delete group.memberIds;
  }
}

/** A channel of the workspace by id, for a principal that sees the whole workspace: prepared, once per kind. */
const channelById = {
  message: preparedQuery('message_channel_by_id', (db, p: { workspaceId: string; id: string }) =>
    db.selectFrom(channelsAs('message')).selectAll('c').where('c.workspace_id', '=', p.workspaceId).where('c.id', '=', p.id),
  ),
  file: preparedQuery('file_channel_by_id', (db, p: { workspaceId: string; id: string }) =>
    db.selectFrom(channelsAs('file')).selectAll('c').where('c.workspace_id', '=', p.workspaceId).where('c.id', '=', p.id),
  ),
};

/** The channel's row, if this access sees it (another workspace's, or one outside the caller's reach, is simply not found). */
export async function findChannelRow<K extends ChannelKind>(
  db: Kysely<DB>,
  access: Access,
  kind: K,
  id: string,
): Promise<ChannelRow<K> | undefined> {
  if (!access.companyIds && !access.clientId)
    return (await channelById[kind].first(db, { workspaceId: access.workspaceId, id })) as ChannelRow<K> | undefined;
  return (await visibleChannels(db, kind, access).where('c.id', '=', id).executeTakeFirst()) as ChannelRow<K> | undefined;
}

/**
 * The channel as the API serves it, if this access sees it. `pruned`: a group's memberIds less the clients
 * deleted since (one more query); without, as stored (a deleted client is no client of the workspace anyway).
 */
export async function findChannel<K extends ChannelKind>(
  db: Kysely<DB>,
  access: Access,
  kind: K,
  id: string,
  pruned: boolean,
): Promise<Channel<K> | undefined> {
  const row = await findChannelRow(db, access, kind, id);
  if (!row) return undefined;
  const channel = toChannel(kind, row);
  if (pruned) await pruneDeletedMembers(db, kind, [channel]);
  return channel;
}

/** A new channel: its members as resolved, in order. */
export interface NewChannel {
  id: string;
  membershipType: MessageChannel['membershipType'];
  companyId: string;
  clientIds: readonly string[];
  at: string;
}

/**
 * Queues a new channel of this access's workspace and its member rows; the channel as served. A file
 * channel's clients may read and write at its root; a message channel has no message yet.
 */
export function insertChannel<K extends ChannelKind>(work: UnitOfWork, access: Access, kind: K, channel: NewChannel): Channel<K> {
  const row = {
    id: channel.id,
    workspace_id: access.workspaceId,
    membership_type: channel.membershipType,
    company_id: channel.companyId,
    client_id: channel.membershipType === 'individual' ? channel.clientIds[0] : null,
    member_ids: joinIds(channel.clientIds),
    ...(kind === 'message'
      ? { last_message_date: null, activity_key: activityKey(null, channel.at) }
      : { root_client_permissions: 'read_write' as const }),
    created_at: channel.at,
    updated_at: channel.at,
  } as ChannelRow<K>;
  work.write(work.db.insertInto(TABLES[kind].channels as 'message_channels').values(row as MessageChannelsTable));
  if (channel.clientIds.length > 0) {
    work.write(
      work.db
        .insertInto(TABLES[kind].members as 'message_channel_members')
        .values(channel.clientIds.map((client_id) => ({ channel_id: channel.id, client_id }))),
    );
  }
  return toChannel(kind, row);
}

/** Queues the deletion of a channel of this access's workspace and its member rows (what it holds is its family's to delete first). */
export function deleteChannel(work: UnitOfWork, access: Access, kind: ChannelKind, id: string): void {
  work.write(work.db.deleteFrom(TABLES[kind].members as 'message_channel_members').where('channel_id', '=', id));
  work.write(
    work.db
      .deleteFrom(TABLES[kind].channels as 'message_channels')
      .where('workspace_id', '=', access.workspaceId)
      .where('id', '=', id),
  );
}
