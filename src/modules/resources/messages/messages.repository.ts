import { type Kysely, sql } from 'kysely';
import { type Page, type PageRequest, type PageTokens, pageScope, preparedList } from '../../../db/paging.js';
import { type FullRow, preparedQuery, preparedWrite } from '../../../db/prepared.js';
import type { DB, MessagesTable } from '../../../db/schema.js';
import type { UnitOfWork } from '../../../db/unit-of-work.js';
import type { Access } from '../../../lib/caller.js';
import { activityKey, visibleChannelIds } from '../../components/channels/index.js';
import type { Message } from './messages.schemas.js';

// A channel's rows are the channels component's (modules/components/channels); its messages are stored here.

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

/**
 * Stores a message, numbered in its workspace's order of commits, and moves its channel's lastMessageDate to it, in
 * the same unit. The number is taken from the workspace's counter inside the commit (its row lock orders concurrent
 * sends, across processes too; a rollback gives it back), so a message that commits later always has a higher one:
 * a stream resuming after a number misses nothing. The date's guard keeps the newest date when two sends commit out
 * of order.
 */
export function insertMessage(work: UnitOfWork, access: Access, message: Message, senderType: MessagesTable['sender_type']): void {
  work.writeReturning(takeMessageSeq(work.db, { workspaceId: access.workspaceId }), (row) =>
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
        seq: Number(row?.last_seq),
      }),
      // The channel deleted between the check and the commit (SQLite names no foreign key).
      { messages_channel_id_fkey: 'body.channelId' },
    ),
  );
  work.write(
    moveLastMessageDate(work.db, {
      workspaceId: access.workspaceId,
      channelId: message.channelId,
      at: message.createdAt,
      activityKey: activityKey(message.createdAt, message.createdAt),
    }),
  );
}

const takeMessageSeq = preparedWrite('take_message_seq', (db, p: { workspaceId: string }) =>
  db
    .insertInto('message_sequences')
    .values({ workspace_id: p.workspaceId, last_seq: 1 })
    .onConflict((oc) => oc.column('workspace_id').doUpdateSet({ last_seq: sql`message_sequences.last_seq + 1` }))
    .returning('last_seq'),
);

const insertMessageRow = preparedWrite('insert_message', (db, row: FullRow<'messages'>) => db.insertInto('messages').values(row));

/** The channel's last message date, and its place in the inbox's order with it (the channels component's activityKey). */
const moveLastMessageDate = preparedWrite(
  'move_last_message_date',
  (db, p: { workspaceId: string; channelId: string; at: string; activityKey: string }) =>
    db
      .updateTable('message_channels')
      .set({ last_message_date: p.at, activity_key: p.activityKey, updated_at: p.at })
      .where('workspace_id', '=', p.workspaceId)
      .where('id', '=', p.channelId)
      .where((eb) => eb.or([eb('last_message_date', 'is', null), eb('last_message_date', '<', p.at)])),
);

/** How many messages a channel holds (the caller has checked that it sees the channel): what its deletion takes with it. */
export async function countMessages(db: Kysely<DB>, access: Access, channelId: string): Promise<number> {
  const row = await db
    .selectFrom('messages')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('workspace_id', '=', access.workspaceId)
    .where('channel_id', '=', channelId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Queues the deletion of every message of a channel (the caller deletes the channel in the same unit). */
export function deleteMessagesOf(work: UnitOfWork, access: Access, channelId: string): void {
  work.write(work.db.deleteFrom('messages').where('workspace_id', '=', access.workspaceId).where('channel_id', '=', channelId));
}

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

/** The number of the workspace's last committed message (0 before the first): where a new stream starts. */
export async function lastMessageSeq(db: Kysely<DB>, access: Access): Promise<number> {
  const row = await lastSeqOf.first(db, { workspaceId: access.workspaceId });
  return row === undefined ? 0 : Number(row.last_seq);
}

const lastSeqOf = preparedQuery('last_message_seq', (db, p: { workspaceId: string }) =>
  db.selectFrom('message_sequences').select('last_seq').where('workspace_id', '=', p.workspaceId),
);

/** Which messages a stream reads: numbered after `after`, in one channel when it names one. */
export interface MessagesAfter {
  after: number;
  channelId?: string;
}

/**
 * The messages this access sees numbered after `after` (in `channelId` when given), in commit order: the rows' query.
 * Visibility is the channels component's, read at each call: a client removed from a channel stops reading it at once.
 */
function visibleMessagesAfter(db: Kysely<DB>, access: Access, { after, channelId }: MessagesAfter) {
  let q = db.selectFrom('messages').where('workspace_id', '=', access.workspaceId).where('seq', '>', after);
  if (channelId !== undefined) q = q.where('channel_id', '=', channelId);
  // A key, a bearer token or an internal user of every company sees every channel of the workspace.
  if (access.companyIds !== null || access.clientId !== null) q = q.where('channel_id', 'in', visibleChannelIds(db, access, 'message'));
  return q.orderBy('seq');
}

/** The next `limit` messages this access sees after number `after`, oldest first, each with its number: what a stream sends next. */
export async function listMessagesAfter(
  db: Kysely<DB>,
  access: Access,
  range: MessagesAfter,
  limit: number,
): Promise<{ seq: number; message: Message }[]> {
  const rows = await visibleMessagesAfter(db, access, range).selectAll().limit(limit).execute();
  return rows.map((row) => ({ seq: Number(row.seq), message: toMessage(row) }));
}

/** Whether this access sees more than `count` messages after number `after`: more than a stream replays. */
export async function moreMessagesAfter(db: Kysely<DB>, access: Access, range: MessagesAfter, count: number): Promise<boolean> {
  const row = await visibleMessagesAfter(db, access, range).select('seq').limit(1).offset(count).executeTakeFirst();
  return row !== undefined;
}
