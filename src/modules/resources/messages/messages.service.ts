import { recordAudit } from '../../../audit/index.js';
import type { Database } from '../../../db/database.js';
import type { Page, PageTokens } from '../../../db/paging.js';
import { unitOfWork } from '../../../db/unit-of-work.js';
import { type Caller, assertNamesItself, ownUserOf } from '../../../lib/caller.js';
import { isoAt } from '../../../lib/clock.js';
import { type FieldProblem, errors, orNotFound } from '../../../lib/errors.js';
import type { EventBus } from '../../../lib/event-bus.js';
import { newRowId } from '../../../lib/row-id.js';
import type { StreamCursors } from '../../../lib/stream-cursors.js';
import * as channels from '../../components/channels/index.js';
import type { MessageChannel, MessageChannelCreate, MessageChannelListQuery } from '../../components/channels/index.js';
import { visibleClientCompanies } from '../directory/index.js';
import { findInternalUser } from '../internal-users/index.js';
import * as repo from './messages.repository.js';
import type { Message, MessageCreate, MessageListQuery, MessageStreamQuery } from './messages.schemas.js';

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

/**
 * Sends a message in a channel the caller sees: the message, its channel's lastMessageDate and messageSent in one
 * unit; once it has committed, `message.created` on the event bus (the streams of every process read it).
 */
export async function sendMessage(database: Database, caller: Caller, input: MessageCreate, events: EventBus): Promise<Message> {
  assertNamesItself(caller, 'body.senderId', input.senderId);
  const problems: FieldProblem[] = [];
  const channel = await channels.findVisibleChannel(database, caller, 'message', input.channelId);
  if (!channel) problems.push({ path: 'body.channelId', message: 'is not a message channel of this workspace' });
  const sender = await senderOf(database, caller, channel, input.senderId, problems);
  if (problems.length > 0 || !channel || !sender) throw errors.invalidFields(problems);
  const at = isoAt(caller.actor.at);
  const message: Message = {
    id: newRowId(),
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
    work.onCommit(() =>
      events.publish({ kind: 'message.created', workspaceId: caller.access.workspaceId, channelId: channel.id, messageId: message.id }),
    );
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
  const page = { limit: query.limit, nextToken: query.nextToken };
  return channels.channelPage(database, caller, 'message', query.channelId, (channelId) =>
    repo.listMessages(database.db, caller.access, channelId, page, tokens),
  );
}

/** Messages a stream reads at once: a page of the catch-up, or what one event (or several close together) brought. */
const STREAM_PAGE = 100;
/** The most missed messages a stream replays; past it, it starts from the newest (`reset`). */
export const MAX_REPLAY = 1000;

/** Where a stream of messages goes (the route writes it as server-sent events); closed when the client goes. */
export interface MessageStreamSink {
  readonly closed: boolean;
  /** The first event: the stream is live, at this position. */
  ready(cursor: string): void;
  message(cursor: string, message: Message): void;
  /** What was missed cannot be replayed (more than MAX_REPLAY, or a position this database never reached): live from here. */
  reset(cursor: string, reason: string): void;
  /** Resolves once the client has taken what was sent (a slow reader holds the next read back). */
  drained(): Promise<void>;
  onClose(handler: () => void): void;
  /** The stream cannot go on (a read failed): it ends, and the client resumes where it was. */
  fail(error: unknown): void;
}

/** Where a stream resumes: the cursor given, and the field that gave it (what a 400 names). */
export interface StreamResumption {
  cursor: string;
  field: string;
}

/**
 * Follows the messages the caller sees (one channel's with `channelId`: a channel it does not see is a 404, as GET
 * /v1/messages answers) into `sink`: after `resume`'s position when given (a cursor of another workspace, altered or
 * made up, is a 400 naming its field), else from now on. The bus is listened to before the first read, and every read
 * is "what this caller sees after the last position sent", in commit order: a message committed while the stream
 * catches up is sent once, after those before it, and one the bus did not bring (a process cut off from it for a
 * while) goes with the next event, or `missed`. Which channels the caller sees is read again at each read: a client
 * removed from a channel receives none of its later messages. At most MAX_REPLAY missed messages are replayed; past
 * that (or from a position this database never reached) the stream says `reset` and goes on from the newest.
 * Returns once the stream is live; it reads in the background until the sink closes.
 */
export async function followMessages(
  database: Database,
  caller: Caller,
  query: MessageStreamQuery,
  resume: StreamResumption | undefined,
  live: { bus: EventBus; cursors: StreamCursors },
  sink: MessageStreamSink,
): Promise<void> {
  const { access } = caller;
  const { workspaceId } = access;
  const { channelId } = query;
  if (channelId !== undefined) orNotFound(await channels.findVisibleChannel(database, caller, 'message', channelId), 'Message channel');
  const since = resume === undefined ? undefined : live.cursors.decode(workspaceId, resume.cursor);
  if (resume !== undefined && since === undefined)
    throw errors.invalidField(resume.field, 'is not a position of this workspace’s message stream');
  const cursorOf = (seq: number) => live.cursors.encode(workspaceId, seq);

  let position = 0;
  let started = false;
  let wanted = true;
  let reading = false;
  const read = async () => {
    reading = true;
    try {
      while (wanted && !sink.closed) {
        wanted = false;
        const page = await repo.listMessagesAfter(database.db, access, { after: position, channelId }, STREAM_PAGE);
        for (const { seq, message } of page) {
          if (sink.closed) return;
          sink.message(cursorOf(seq), message);
          position = seq;
        }
        if (page.length === STREAM_PAGE) wanted = true;
        await sink.drained();
      }
    } catch (error) {
      sink.fail(error);
    } finally {
      reading = false;
    }
  };
  const wake = () => {
    wanted = true;
    if (started && !reading && !sink.closed) void read();
  };
  const unsubscribe = live.bus.subscribe({
    event: (event) => {
      if (event.workspaceId === workspaceId && (channelId === undefined || event.channelId === channelId)) wake();
    },
    missed: wake,
  });
  sink.onClose(unsubscribe);

  const newest = await repo.lastMessageSeq(database.db, access);
  const range = { after: since ?? newest, channelId };
  if (since === undefined) {
    position = newest;
    sink.ready(cursorOf(newest));
  } else if (since > newest || (await repo.moreMessagesAfter(database.db, access, range, MAX_REPLAY))) {
    position = newest;
    sink.ready(cursorOf(newest));
    sink.reset(
      cursorOf(newest),
      since > newest
        ? 'This position is past the newest message (a database restored from an older backup?): read the messages again.'
        : `More than ${MAX_REPLAY} messages were missed: read them again (GET /v1/messages).`,
    );
  } else {
    position = since;
    sink.ready(cursorOf(since));
  }
  started = true;
  wake();
}
