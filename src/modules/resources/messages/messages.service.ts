import { randomUUID } from 'node:crypto';
import { recordAudit } from '../../../audit/index.js';
import type { Database } from '../../../db/database.js';
import type { Page, PageTokens } from '../../../db/paging.js';
import { unitOfWork } from '../../../db/unit-of-work.js';
import { type Caller, assertNamesItself, ownUserOf } from '../../../lib/caller.js';
import { isoAt } from '../../../lib/clock.js';
import { type FieldProblem, errors, orNotFound } from '../../../lib/errors.js';
import * as channels from '../../components/channels/index.js';
import type { MessageChannel, MessageChannelCreate, MessageChannelListQuery } from '../../components/channels/index.js';
import { visibleClientCompanies } from '../directory/index.js';
import { findInternalUser } from '../internal-users/index.js';
import * as repo from './messages.repository.js';
import type { Message, MessageCreate, MessageListQuery } from './messages.schemas.js';

const channelSubject = (channel: MessageChannel) => ({
  object: 'messageChannel',
  id: channel.id,
  data: channel,
  companyId: channel.companyId,
});

/**
 * Creates a message channel for one client, clients of one company or a company (resolved as app
 * connections are: every failing field named in one 400), with its messageChannelCreated entry in the same unit.
 */
export function createChannel(database: Database, caller: Caller, input: MessageChannelCreate): Promise<MessageChannel> {
  return channels.createChannel(database, caller, 'message', input, (work, channel) =>
    recordAudit(work, caller.actor, {
      eventType: 'messageChannelCreated',
      description: `${input.membershipType} message channel created`,
      context: { channelId: channel.id, membershipType: channel.membershipType, companyId: channel.companyId },
      subject: channelSubject(channel),
    }),
  );
}

/**
 * Deletes a message channel with its messages and members, and records messageChannelDeleted (the channel as it
 * was, and how many messages went with it), all in one transaction. Nothing else refers to a message: the
 * messageSent entries of the audit log stay, as history.
 */
export async function deleteChannel(database: Database, caller: Caller, id: string) {
  const channel = await channels.deleteChannel(database, caller, 'message', id, async (work, channel) => {
    const messageCount = await repo.countMessages(work.db, caller.access, channel.id);
    repo.deleteMessagesOf(work, caller.access, channel.id);
    recordAudit(work, caller.actor, {
      eventType: 'messageChannelDeleted',
      description: `${channel.membershipType} message channel deleted, with ${messageCount} message${messageCount === 1 ? '' : 's'}`,
      context: { channelId: channel.id, membershipType: channel.membershipType, companyId: channel.companyId, messageCount },
      subject: channelSubject(channel),
    });
  });
  return { id: channel.id, object: 'messageChannel', deleted: true as const };
}

export function listChannels(
  database: Database,
  caller: Caller,
  query: MessageChannelListQuery,
  tokens: PageTokens,
): Promise<Page<MessageChannel>> {
  return channels.listChannels(database, caller, 'message', query, tokens);
}

export function getChannel(database: Database, caller: Caller, id: string): Promise<MessageChannel> {
  return channels.getChannel(database, caller, 'message', id);
}

/**
 * Who sends: a person (an app's session, or signed in to the portal) its own user (a `senderId` naming
 * another is a 403, lib/caller.ts assertNamesItself, before anything is read); a key or bearer token the
 * `senderId` it names. The sender must belong to the channel: a client member (its client, one of its
 * group, or a client of its company), or an internal user of the workspace who sees its company.
 */
async function senderOf(
  database: Database,
  caller: Caller,
  channel: MessageChannel | undefined,
  given: string | undefined,
  problems: FieldProblem[],
): Promise<{ id: string; type: 'client' | 'internalUser' } | undefined> {
  const own = ownUserOf(caller);
  // A client sees only channels it belongs to: it is a member of this one.
  if (own?.type === 'client') return { id: own.id, type: 'client' };
  const id = given ?? own?.id;
  if (id === undefined) {
    problems.push({
      path: 'body.senderId',
      message: 'is required with an API key (a key has no user of its own): give a client or internal user who is a member of the channel',
    });
    return undefined;
  }
  if (channel === undefined) return undefined;
  const [clients, user] = await Promise.all([
    visibleClientCompanies(database.db, caller.access, [id]),
    findInternalUser(database.db, caller.access, id),
  ]);
  const companies = clients.get(id);
  if (companies !== undefined) {
    const member = channel.membershipType === 'company' ? companies.includes(channel.companyId) : (channel.memberIds ?? []).includes(id);
    if (member) return { id, type: 'client' };
    problems.push({ path: 'body.senderId', message: 'is a client who is not a member of this channel' });
  } else if (user) {
    if (!user.isClientAccessLimited || user.companyAccessList.includes(channel.companyId)) return { id, type: 'internalUser' };
    problems.push({ path: 'body.senderId', message: 'is an internal user who cannot see this channel’s company' });
  } else {
    problems.push({ path: 'body.senderId', message: 'is not a client or internal user of this workspace' });
  }
  return undefined;
}

/** Sends a message in a channel the caller sees: the message, its channel's lastMessageDate and messageSent in one unit. */
export async function sendMessage(database: Database, caller: Caller, input: MessageCreate): Promise<Message> {
  assertNamesItself(caller, 'body.senderId', input.senderId);
  const problems: FieldProblem[] = [];
  const channel = await channels.findVisibleChannel(database, caller, 'message', input.channelId);
  if (!channel) problems.push({ path: 'body.channelId', message: 'is not a message channel of this workspace' });
  const sender = await senderOf(database, caller, channel, input.senderId, problems);
  if (problems.length > 0 || !channel || !sender) throw errors.invalidFields(problems);
  const at = isoAt(caller.actor.at);
  const message: Message = {
    id: randomUUID(),
    object: 'message',
    senderId: sender.id,
    createdAt: at,
    updatedAt: at,
    channelId: channel.id,
    text: input.text,
    isAttachmentIncluded: false,
  };
  await unitOfWork(database, async (work) => {
    repo.insertMessage(work, caller.access, message, sender.type);
    recordAudit(work, caller.actor, {
      eventType: 'messageSent',
      description: 'Message sent',
      context: { channelId: channel.id, messageId: message.id, senderId: sender.id, senderType: sender.type },
      subject: { object: 'message', id: message.id, data: message, companyId: channel.companyId },
    });
  });
  return message;
}

/** A channel's messages, newest first; a channel the caller does not see is a 404. */
export async function listMessages(
  database: Database,
  caller: Caller,
  query: MessageListQuery,
  tokens: PageTokens,
): Promise<Page<Message>> {
  const channel = orNotFound(await channels.findVisibleChannel(database, caller, 'message', query.channelId), 'Message channel');
  return repo.listMessages(database.db, caller.access, channel.id, { limit: query.limit, nextToken: query.nextToken }, tokens);
}
