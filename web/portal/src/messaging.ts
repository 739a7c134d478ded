// The Messages section's data, apart from its pages: who a conversation is with and who sent what (names from
// names.ts), which conversations have messages the person has not seen (the API keeps no read state: this browser
// remembers the newest message seen in each channel), the count for the navigation, and the messages as they are
// sent (GET /v1/messages/stream).
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Answer, Item } from '../../kit/api.js';
import { type Person, ok, v1 } from './api.js';
import type { NameWanted, Names } from './names.js';
import type { SignedIn } from './signed-in.js';
import { BASE, WORKSPACE_ID } from './router.js';
import type { Waiting } from './sections.js';

export type Channel = Answer<'/v1/message-channels/{id}'>;
export type Message = Item<'/v1/messages'>;

// --- what has been seen ---------------------------------------------------------------------------------------------

/** The newest message seen in each channel (its createdAt), per person and workspace, in this browser's storage. */
type Seen = Record<string, string>;

const seenKey = (person: Person) => `portal:${WORKSPACE_ID}:${person.type}:${person.id}:messages-seen`;

export function readSeen(person: Person): Seen {
  try {
    const stored: unknown = JSON.parse(window.localStorage.getItem(seenKey(person)) ?? '{}');
    return stored !== null && typeof stored === 'object' ? (stored as Seen) : {};
  } catch {
    // No storage (a private window may refuse it), or not ours: everything reads as unseen, nothing breaks.
    return {};
  }
}

/** The person has seen the channel's messages up to `at` (a message's createdAt); never moves back. */
export function markSeen(person: Person, channelId: string, at: string) {
  const seen = readSeen(person);
  if (seen[channelId] !== undefined && seen[channelId] >= at) return;
  seen[channelId] = at;
  try {
    window.localStorage.setItem(seenKey(person), JSON.stringify(seen));
  } catch {
    // Full or refused: the channel shows as new again next time, which is all that is lost.
  }
}

/** Whether the channel's newest message is newer than the newest this person has seen here. */
export const hasNew = (channel: Pick<Channel, 'id' | 'lastMessageDate'>, seen: Seen) =>
  channel.lastMessageDate !== undefined && !(seen[channel.id] !== undefined && seen[channel.id] >= channel.lastMessageDate);

/** The conversations read for the navigation's count: a person in more than this many sees the first ones counted. */
const COUNTED_CHANNELS = 100;

/** The navigation's badge and the home page's line: the conversations with messages not seen yet. */
export async function messagesWaiting({ person }: SignedIn): Promise<Waiting> {
  // In the inbox's order: a person in more channels than are counted has those of the newest activity counted.
  const channels = await ok(v1.GET('/v1/message-channels', { params: { query: { limit: COUNTED_CHANNELS, orderBy: 'lastMessageDate' } } }));
  const seen = readSeen(person);
  const count = channels.data.filter((channel) => hasNew(channel, seen)).length;
  return { section: '/messages', count, says: `${count} conversation${count === 1 ? '' : 's'} with new messages` };
}

// --- labels -------------------------------------------------------------------------------------------------------------

/** The names a channel's label needs: a client reads only its own companies; staff its clients too. */
export function channelNamesWanted(channel: Channel, person: Person): NameWanted[] {
  const company: NameWanted = ['company', channel.companyId];
  if (person.type === 'client') return channel.membershipType === 'individual' ? [] : [company];
  if (channel.membershipType === 'company') return [company];
  const clients = membersOf(channel).map((id): NameWanted => ['client', id]);
  // A group is named by its clients, and said to be of its company.
  return channel.membershipType === 'group' ? [...clients, company] : clients;
}

const membersOf = (channel: Channel) => channel.memberIds ?? (channel.clientId ? [channel.clientId] : []);

/**
 * Who a conversation is with, as the person sees it: a client talks with the workspace (individual), their group
 * or their company; staff with the client(s) or the company. Undefined while a name it needs is being looked up.
 */
export function conversationName(channel: Channel, person: Person, workspaceName: string, name: Names): string | undefined {
  const company = name('company', channel.companyId);
  if (channel.membershipType === 'company') return company === undefined ? undefined : `Everyone at ${company ?? 'your company'}`;
  if (person.type === 'client') {
    if (channel.membershipType === 'individual') return `You and ${workspaceName}`;
    return company === undefined ? undefined : `Your group at ${company ?? 'your company'}`;
  }
  const members = membersOf(channel).map((id) => name('client', id));
  if (members.some((m) => m === undefined)) return undefined;
  return members.map((m) => m ?? 'a client no longer listed').join(', ') || 'Nobody';
}

/** Who is in it, in a line under the name (staff read a group's company by name, when `name` is given). */
export function membersLine(channel: Channel, person: Person, workspaceName: string, name?: Names): string {
  const clients = membersOf(channel).length;
  const client = person.type === 'client';
  if (channel.membershipType === 'company')
    return client ? `Every client of your company, and ${workspaceName}` : 'Every client of the company, and staff';
  if (channel.membershipType === 'individual') return client ? `Your own conversation with ${workspaceName}` : 'One client, and staff';
  const others = clients - 1;
  return client
    ? `You, ${others} other client${others === 1 ? '' : 's'} and ${workspaceName}`
    : `A group of ${clients} client${clients === 1 ? '' : 's'}${ofCompany(channel, name)}, and staff`;
}

/** " of Northwind" when the company's name is known; nothing otherwise. */
function ofCompany(channel: Channel, name: Names | undefined): string {
  const company = name?.('company', channel.companyId);
  return company ? ` of ${company}` : '';
}

/** The sender names a thread needs: staff may read clients and internal users; a client only itself. */
export function senderNamesWanted(messages: Message[], person: Person): NameWanted[] {
  if (person.type === 'client') return [];
  return [...new Set(messages.map((m) => m.senderId))].filter((id) => id !== person.id).map((id): NameWanted => ['sender', id]);
}

/**
 * Who sent a message, as the person may know: themselves; for staff, the client or internal user by name; for a
 * client, the workspace in their own channel (nobody else is in it), else "Another member" (a client may read no
 * one else: not the other clients of their company, not the staff).
 */
export function senderName(message: Message, channel: Channel | undefined, person: Person, workspaceName: string, name: Names): string {
  if (message.senderId === person.id) return 'You';
  if (person.type === 'client') return channel?.membershipType === 'individual' ? workspaceName : 'Another member';
  const found = name('sender', message.senderId);
  return found === undefined ? '…' : (found ?? 'Someone no longer listed');
}

const when = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** A message's or a channel's moment, in the reader's own way of writing dates. */
export const formatWhen = (iso: string) => when.format(new Date(iso));

// --- live --------------------------------------------------------------------------------------------------------------

/** Whether new messages arrive by themselves: `stopped` once the browser gave up (the server refused the stream). */
export type Live = 'connecting' | 'live' | 'stopped';

/**
 * The messages sent while the page is open, from the server's stream (server-sent events, with the session's cookie):
 * one channel's, or every channel's the person sees. EventSource reconnects by itself when the connection drops or the
 * server ends the stream, and resumes where it was (Last-Event-ID), so nothing is missed or repeated; `onReset` when
 * the server could not replay what was missed (read again). A refusal (signed out, too many streams) stops it.
 */
export function useMessageStream(channelId: string | undefined, onMessage: (message: Message) => void, onReset: () => void): Live {
  const handlers = useRef({ onMessage, onReset });
  handlers.current = { onMessage, onReset };
  const [live, setLive] = useState<Live>('connecting');
  useEffect(() => {
    const query = channelId === undefined ? '' : `?channelId=${encodeURIComponent(channelId)}`;
    const source = new EventSource(`${BASE}/v1/messages/stream${query}`);
    source.addEventListener('ready', () => setLive('live'));
    source.addEventListener('message.created', (event) => {
      let message: Message;
      try {
        message = JSON.parse((event as MessageEvent<string>).data);
      } catch {
        return; // not a message: nothing to show
      }
      handlers.current.onMessage(message);
    });
    source.addEventListener('reset', () => handlers.current.onReset());
    source.onerror = () => setLive(source.readyState === EventSource.CLOSED ? 'stopped' : 'connecting');
    return () => source.close();
  }, [channelId]);
  return live;
}
