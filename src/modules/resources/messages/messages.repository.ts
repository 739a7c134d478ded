import type { Kysely } from 'kysely';
import { type Page, type PageRequest, type PageTokens, pageScope, preparedList } from '../../../db/paging.js';
import { type FullRow, preparedWrite } from '../../../db/prepared.js';
import type { DB, MessagesTable } from '../../../db/schema.js';
import type { UnitOfWork } from '../../../db/unit-of-work.js';
import type { Access } from '../../../lib/caller.js';
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
    // The channel deleted between the check and the commit (SQLite names no foreign key).
    { messages_channel_id_fkey: 'body.channelId' },
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
