import type { ExpressionBuilder, Kysely } from 'kysely';
import { type Page, type PageRequest, type PageTokens, fetchPage, pageScope, preparedList } from '../../db/paging.js';
import { preparedQuery, preparedWrite } from '../../db/prepared.js';
import { joinIds, nonEmpty, objectFields, splitIds } from '../../db/rows.js';
import type { DB, MessageChannelsTable, MessagesTable } from '../../db/schema.js';
import type { FullRow } from '../../db/prepared.js';
import type { UnitOfWork } from '../../db/unit-of-work.js';
import type { Access } from '../../lib/caller.js';
import type { Message, MessageChannel } from './messages.schemas.js';

/** A channel as the API serves it: what a channel of its type does not have is left out, never null. */
export function toChannel(row: MessageChannelsTable): MessageChannel {
  const memberIds = splitIds(row.member_ids);
  const entityId = row.membership_type === 'individual' ? row.client_id : row.membership_type === 'company' ? row.company_id : null;
  return {
    ...objectFields(row, 'messageChannel'),
    membershipType: row.membership_type,
    ...(row.client_id !== null ? { clientId: row.client_id } : {}),
    companyId: row.company_id,
    ...(entityId !== null ? { membershipEntityId: entityId } : {}),
    ...(memberIds.length > 0 ? { memberIds } : {}),
    ...(row.last_message_date !== null ? { lastMessageDate: row.last_message_date } : {}),
  };
}

function toMessage(row: MessagesTable): Message {
  return {
    id: row.id,
    object: 'message',
    senderId: row.sender_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    channelId: row.channel_id,
    text: row.text,
    isAttachmentIncluded: false,
  };
}

/** Channels a client belongs to: it is a member (individual, group), or the channel is one of its companies' (company). */
const clientBelongs =
  (workspaceId: string, clientId: string) =>
  ({ or, and, eb, exists, selectFrom }: ExpressionBuilder<DB, 'message_channels'>) =>
    or([
      exists(
        selectFrom('message_channel_members as m')
          .select('m.client_id')
          .whereRef('m.channel_id', '=', 'message_channels.id')
          .where('m.client_id', '=', clientId),
      ),
      and([
        eb('message_channels.membership_type', '=', 'company'),
        eb(
          'message_channels.company_id',
          'in',
          selectFrom('client_companies as cc')
            .select('cc.company_id')
            .where('cc.workspace_id', '=', workspaceId)
            .where('cc.client_id', '=', clientId),
        ),
      ]),
    ]);

/** Channels this access sees: its workspace's; a principal limited to some companies only theirs; a client session only its own. */
function visibleChannels(db: Kysely<DB>, access: Access) {
  let q = db.selectFrom('message_channels').selectAll('message_channels').where('message_channels.workspace_id', '=', access.workspaceId);
  if (access.companyIds) q = q.where('message_channels.company_id', 'in', nonEmpty(access.companyIds));
  if (access.clientId) q = q.where(clientBelongs(access.workspaceId, access.clientId));
  return q;
}

/** The `memberId` filter, resolved by the service: a client, the companies an internal user sees (null: all), or nobody known. */
export type MemberFilter =
  | { kind: 'client'; id: string }
  | { kind: 'internalUser'; companyIds: readonly string[] | null }
  | { kind: 'unknown' };

export interface ChannelFilters {
  membershipType?: MessageChannel['membershipType'];
  clientId?: string;
  member?: MemberFilter;
  /** The memberId as given: part of the page token's scope. */
  memberId?: string;
}

/**
 * A page of the channels this access sees, newest first. `membershipType` and `clientId` range over their
 * own index; the access and `memberId` are conditions over the rows of that range (as app connections' clientId).
 */
export async function listChannels(
  db: Kysely<DB>,
  access: Access,
  filters: ChannelFilters,
  page: PageRequest,
  tokens: PageTokens,
): Promise<Page<MessageChannel>> {
  const { membershipType, clientId, member } = filters;
  let q = visibleChannels(db, access);
  if (membershipType !== undefined) q = q.where('message_channels.membership_type', '=', membershipType);
  if (clientId !== undefined) q = q.where('message_channels.client_id', '=', clientId);
  if (member?.kind === 'client') q = q.where(clientBelongs(access.workspaceId, member.id));
  else if (member?.kind === 'internalUser' && member.companyIds !== null)
    q = q.where('message_channels.company_id', 'in', nonEmpty(member.companyIds));
  else if (member?.kind === 'unknown') q = q.where(({ lit }) => lit(false));
  const scope = pageScope(access, 'message-channels', { membershipType, clientId, memberId: filters.memberId });
  const found = await fetchPage(q, 'message_channels', page, tokens, scope, toChannel);
  await pruneDeletedMembers(db, found.data);
  return found;
}

/**
 * A group's memberIds as stored, less the clients deleted since: their member rows went with them (an
 * individual channel goes with its client, a company channel with its company). One query for a page.
 */
async function pruneDeletedMembers(db: Kysely<DB>, channels: MessageChannel[]): Promise<void> {
  const groups = channels.filter((channel) => channel.membershipType === 'group');
  if (groups.length === 0) return;
  const rows = await db
    .selectFrom('message_channel_members')
    .select(['channel_id', 'client_id'])
    .where(
      'channel_id',
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

const channelById = preparedQuery('message_channel_by_id', (db, p: { workspaceId: string; id: string }) =>
  db.selectFrom('message_channels').selectAll().where('workspace_id', '=', p.workspaceId).where('id', '=', p.id),
);

/** The channel, if this access sees it (another workspace's, or one outside the caller's reach, is simply not found). */
export async function findChannelRow(db: Kysely<DB>, access: Access, id: string): Promise<MessageChannelsTable | undefined> {
  if (!access.companyIds && !access.clientId) return channelById.first(db, { workspaceId: access.workspaceId, id });
  return visibleChannels(db, access).where('message_channels.id', '=', id).executeTakeFirst();
}

/** The channel as the API serves it, if this access sees it. */
export async function findChannel(db: Kysely<DB>, access: Access, id: string): Promise<MessageChannel | undefined> {
  const row = await findChannelRow(db, access, id);
  if (!row) return undefined;
  const channel = toChannel(row);
  await pruneDeletedMembers(db, [channel]);
  return channel;
}

export function insertChannel(work: UnitOfWork, row: MessageChannelsTable): void {
  work.write(work.db.insertInto('message_channels').values(row));
  const clientIds = splitIds(row.member_ids);
  if (clientIds.length > 0) {
    work.write(work.db.insertInto('message_channel_members').values(clientIds.map((client_id) => ({ channel_id: row.id, client_id }))));
  }
}

/** A new channel's row: members as given, in order. */
export function channelRow(
  access: Access,
  channel: { id: string; membershipType: MessageChannel['membershipType']; companyId: string; clientIds: readonly string[]; at: string },
): MessageChannelsTable {
  return {
    id: channel.id,
    workspace_id: access.workspaceId,
    membership_type: channel.membershipType,
    company_id: channel.companyId,
    client_id: channel.membershipType === 'individual' ? channel.clientIds[0] : null,
    member_ids: joinIds(channel.clientIds),
    last_message_date: null,
    created_at: channel.at,
    updated_at: channel.at,
  };
}

/**
 * Stores a message and moves its channel's lastMessageDate to it, in the same unit. The guard keeps the
 * newest date when two sends commit out of order.
 */
export function insertMessage(work: UnitOfWork, access: Access, message: Message, senderType: MessagesTable['sender_type']): void {
  work.write(
    insertMessageRow(work.db, {
      id: message.id,
      workspace_id: access.workspaceId,
      channel_id: message.channelId,
      sender_id: message.senderId,
      sender_type: senderType,
      text: message.text,
      created_at: message.createdAt,
      updated_at: message.updatedAt,
    }),
  );
  work.write(moveLastMessageDate(work.db, { workspaceId: access.workspaceId, channelId: message.channelId, at: message.createdAt }));
}

const insertMessageRow = preparedWrite('insert_message', (db, row: FullRow<'messages'>) => db.insertInto('messages').values(row));

const moveLastMessageDate = preparedWrite('move_last_message_date', (db, p: { workspaceId: string; channelId: string; at: string }) =>
  db
    .updateTable('message_channels')
    .set({ last_message_date: p.at, updated_at: p.at })
    .where('workspace_id', '=', p.workspaceId)
    .where('id', '=', p.channelId)
    .where((eb) => eb.or([eb('last_message_date', 'is', null), eb('last_message_date', '<', p.at)])),
);

/** A page of a channel's messages, newest first (the caller has checked that it sees the channel). */
export function listMessages(
  db: Kysely<DB>,
  access: Access,
  channelId: string,
  page: PageRequest,
  tokens: PageTokens,
): Promise<Page<Message>> {
  return channelMessages(db, { workspaceId: access.workspaceId, channelId }, page, tokens, pageScope(access, `messages:${channelId}`));
}

/** The same query for every principal (who sees the channel was checked): prepared. */
const channelMessages = preparedList(
  'messages_page',
  (db, p: { workspaceId: string; channelId: string }) =>
    db.selectFrom('messages').selectAll().where('workspace_id', '=', p.workspaceId).where('channel_id', '=', p.channelId),
  'messages',
  toMessage,
);
