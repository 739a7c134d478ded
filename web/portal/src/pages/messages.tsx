import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { ListState, Pager, usePaged } from '../../../kit/list.js';
import { match } from '../../../kit/router.js';
import { ApiError, ok, v1 } from '../api.js';
import { useSignedIn } from '../signed-in.js';
import {
  type Message,
  channelNamesWanted,
  conversationName,
  formatWhen,
  type Live,
  hasNew,
  markSeen,
  membersLine,
  readSeen,
  senderName,
  senderNamesWanted,
  useMessageStream,
} from '../messaging.js';
import { useNames } from '../names.js';
import { Link } from '../router.js';
import { useLoad } from '../../../kit/ui.js';
import { ErrorMessage, Field, LoadFailed, Loading, PageHeading, Submit, text, useAction } from '../ui.js';
import { NewConversation } from '../staff/new-conversation.js';
import { NotFoundPage } from './not-found.js';

/** Conversations a page of the list shows (the API's order: the newest channel first). */
const CHANNELS_PER_PAGE = 25;
/** Messages a page of a thread loads; "Older messages" loads the page before. */
const MESSAGES_PER_PAGE = 20;
/** The longest message the API takes. */
const MESSAGE_MAX = 10_000;

/** The Messages section: the person's conversations at /messages, one conversation at /messages/<channelId>. */
export function MessagesPage({ path }: { path: string }) {
  const thread = match('/messages/:channelId', path);
  if (thread) return <ThreadPage channelId={thread.channelId} />;
  if (path === '/messages') return <ConversationsPage />;
  return <NotFoundPage />;
}

/**
 * The person's conversations. A client's: newest created first, as always. Staff's is the inbox: every channel the
 * API lets them see, newest activity first (`orderBy=lastMessageDate`), a message arriving on the stream moving its
 * conversation to the top and marking it new; and "New conversation" below.
 */
function ConversationsPage() {
  const { person, workspace, staff } = useSignedIn();
  const inbox = staff !== null;
  const list = usePaged(
    (nextToken) =>
      ok(
        v1.GET('/v1/message-channels', {
          params: { query: { limit: CHANNELS_PER_PAGE, nextToken, ...(inbox ? { orderBy: 'lastMessageDate' as const } : {}) } },
        }),
      ),
    [],
  );
  // A channel's newest message as the stream told it since the page was read.
  const [newest, setNewest] = useState<Record<string, string>>({});
  const listed = (list.data?.data ?? []).map((channel) => {
    const at = newest[channel.id];
    return at !== undefined && !(channel.lastMessageDate !== undefined && channel.lastMessageDate >= at)
      ? { ...channel, lastMessageDate: at, moved: true }
      : { ...channel, moved: false };
  });
  // The inbox: what the stream brought since the page was read goes to the top, newest first; the rest in the API's order.
  const channels = inbox
    ? [
        ...listed.filter((c) => c.moved).sort((a, b) => (b.lastMessageDate ?? '').localeCompare(a.lastMessageDate ?? '')),
        ...listed.filter((c) => !c.moved),
      ]
    : listed;
  const name = useNames(
    person,
    channels.flatMap((channel) => channelNamesWanted(channel, person)),
  );
  const [said, say] = useAnnouncer();
  const live = useMessageStream(
    undefined,
    (message) => {
      const channel = channels.find((c) => c.id === message.channelId);
      if (!channel) {
        // A channel not on this page (or new): read the page again; it may be there now (the inbox's first page: at the top).
        list.reload();
        if (message.senderId !== person.id) say('A new message arrived in another conversation.');
        return;
      }
      if (message.senderId === person.id) markSeen(person, message.channelId, message.createdAt);
      else say(`New message in ${conversationName(channel, person, workspace.name, name) ?? 'a conversation'}.`);
      setNewest((known) => ({ ...known, [message.channelId]: message.createdAt }));
    },
    list.reload,
  );
  const seen = readSeen(person);
  return (
    <>
      <PageHeading title="Messages" context={workspace.name} />
      <p>{person.type === 'client' ? `Your conversations with ${workspace.name}.` : 'The conversations with clients that you can see.'}</p>
      <ListState
        list={list}
        empty={
          person.type === 'client'
            ? `No conversations yet: when ${workspace.name} starts one with you, it is here.`
            : 'No conversations yet.'
        }
        what="conversations"
      />
      {channels.length > 0 ? (
        <ul class="conversations" aria-label="Conversations">
          {channels.map((channel) => {
            const fresh = hasNew(channel, seen);
            return (
              <li key={channel.id} class={fresh ? 'conversation has-new' : 'conversation'}>
                <Link href={`/messages/${encodeURIComponent(channel.id)}`}>
                  <span class="conversation-name">{conversationName(channel, person, workspace.name, name) ?? 'Conversation'}</span>
                  {fresh ? (
                    <span class="new-badge">
                      New<span class="visually-hidden"> messages</span>
                    </span>
                  ) : null}
                </Link>
                <span class="conversation-about">
                  {membersLine(channel, person, workspace.name, name)} ·{' '}
                  {channel.lastMessageDate ? (
                    <>
                      last message <time dateTime={channel.lastMessageDate}>{formatWhen(channel.lastMessageDate)}</time>
                    </>
                  ) : (
                    'no messages yet'
                  )}
                </span>
              </li>
            );
          })}
        </ul>
      ) : null}
      <Pager list={list} label="Conversations" />
      <LiveNote live={live} />
      <Announcer said={said} />
      {inbox ? <NewConversation /> : null}
    </>
  );
}

/**
 * What happened, said once to a screen reader in a polite live region (new messages, a page loaded, a message sent):
 * never the whole thread. The same words twice are told apart so that they are said again.
 */
function useAnnouncer(): [string, (words: string) => void] {
  const [said, setSaid] = useState('');
  const say = (words: string) => setSaid((previous) => (previous === words ? `${words}\u00a0` : words));
  return [said, say];
}

function Announcer({ said }: { said: string }) {
  return (
    <p class="visually-hidden" role="status">
      {said}
    </p>
  );
}

/** Said only when new messages no longer arrive by themselves (the server refused the stream). */
function LiveNote({ live }: { live: Live }) {
  if (live !== 'stopped') return null;
  return <p class="notice">New messages no longer appear by themselves: reload the page to see them.</p>;
}

/** Newest first, each message once (a page and a message just sent may overlap). */
function merged(known: Message[], more: Message[]): Message[] {
  const byId = new Map(known.map((m) => [m.id, m]));
  for (const m of more) byId.set(m.id, m);
  return [...byId.values()].sort((a, b) =>
    a.createdAt === b.createdAt ? b.id.localeCompare(a.id) : b.createdAt.localeCompare(a.createdAt),
  );
}

/**
 * A channel's messages, newest first: the newest page at once, then a page further back at each `loadOlder`
 * (the API's nextToken); `add` puts in a message sent meanwhile, `reload` starts again from the newest page.
 */
function useThread(channelId: string) {
  const [messages, setMessages] = useState<Message[]>([]);
  const [olderToken, setOlderToken] = useState<string | undefined>(undefined);
  const [loaded, setLoaded] = useState(false);
  const loading = useAction();
  const page = (nextToken?: string) =>
    ok(v1.GET('/v1/messages', { params: { query: { channelId, limit: MESSAGES_PER_PAGE, nextToken } } }));
  // `again`: what was shown is dropped (it may have a gap before the newest page); at first, what the stream brought
  // while the page was read is kept.
  const newestPage = (again: boolean) =>
    loading.run(async () => {
      const first = await page();
      setMessages((known) => merged(again ? [] : known, first.data));
      setOlderToken(first.nextToken);
      setLoaded(true);
    });
  useEffect(() => void newestPage(false), [channelId]);
  return {
    messages,
    loaded,
    busy: loading.busy,
    error: loading.error,
    hasOlder: olderToken !== undefined,
    /** Loads the page before the oldest shown; answers its messages (none when it failed). */
    async loadOlder(): Promise<Message[]> {
      let older: Message[] = [];
      await loading.run(async () => {
        const before = await page(olderToken);
        older = before.data;
        setMessages((known) => merged(known, before.data));
        setOlderToken(before.nextToken);
      });
      return older;
    },
    add: (message: Message) => setMessages((known) => merged(known, [message])),
    /** From the newest page again (what was missed could not be replayed). */
    reload: () => void newestPage(true),
  };
}

function ThreadPage({ channelId }: { channelId: string }) {
  const { person, workspace } = useSignedIn();
  const channel = useLoad(() => ok(v1.GET('/v1/message-channels/{id}', { params: { path: { id: channelId } } })), [channelId]);
  const thread = useThread(channelId);
  const name = useNames(person, [
    ...(channel.data ? channelNamesWanted(channel.data, person) : []),
    ...senderNamesWanted(thread.messages, person),
  ]);
  const channelFailed = Boolean(channel.error) && !channel.loading;
  const notFound = channel.error instanceof ApiError && channel.error.status === 404;
  const title =
    (channel.data && conversationName(channel.data, person, workspace.name, name)) ??
    (notFound ? 'Conversation not found' : 'Conversation');

  const [said, say] = useAnnouncer();
  // A message sent by someone else appears, and is said; one's own comes back too, and is already there.
  const live = useMessageStream(
    channelId,
    (message) => {
      if (message.channelId !== channelId || thread.messages.some((m) => m.id === message.id)) return;
      thread.add(message);
      if (message.senderId === person.id) return;
      const from = senderName(message, channel.data, person, workspace.name, name);
      say(from === '…' ? `New message: ${message.text}` : `New message from ${from}: ${message.text}`);
    },
    thread.reload,
  );

  const newest = thread.messages[0];
  useEffect(() => {
    if (newest) markSeen(person, channelId, newest.createdAt);
  }, [newest?.id]);

  // The thread scrolls in its own box, kept at its newest message while the reader is there.
  const box = useRef<HTMLElement>(null);
  const atNewest = useRef(true);
  const onScroll = () => {
    const b = box.current;
    if (b) atNewest.current = b.scrollHeight - b.scrollTop - b.clientHeight < 48;
  };
  useLayoutEffect(() => {
    const b = box.current;
    if (b && atNewest.current) b.scrollTop = b.scrollHeight;
  }, [newest?.id, thread.loaded]);

  // After "Older messages", the reader continues at the oldest message it loaded.
  const [focusId, setFocusId] = useState<string | null>(null);
  useEffect(() => {
    if (focusId) document.getElementById(`message-${focusId}`)?.focus();
  }, [focusId]);
  const loadOlder = async () => {
    const older = await thread.loadOlder();
    if (older.length === 0) return;
    setFocusId(older[older.length - 1].id);
    say(`${older.length} older message${older.length === 1 ? '' : 's'} loaded.`);
  };

  const sending = useAction();
  const field = useRef<HTMLTextAreaElement>(null);
  const send = (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    void sending.run(async () => {
      const message = await ok(v1.POST('/v1/messages', { body: { channelId, text: text(form, 'text') } }));
      atNewest.current = true;
      thread.add(message);
      form.reset();
      field.current?.focus();
      say('Message sent.');
    });
  };
  const sendOnCtrlEnter = (event: KeyboardEvent) => {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      (event.currentTarget as HTMLTextAreaElement).form?.requestSubmit();
    }
  };

  const shown = [...thread.messages].reverse();
  return (
    <>
      <PageHeading title={title} context="Messages" />
      <p>
        <Link href="/messages">All conversations</Link>
      </p>
      {/* Its line held while the channel loads: the thread below does not move down when it comes. */}
      <p class="conversation-about">{channel.data ? membersLine(channel.data, person, workspace.name, name) : '\u00a0'}</p>
      {channelFailed ? (
        notFound ? (
          <ErrorMessage error={channel.error} />
        ) : (
          <LoadFailed
            error={channel.error}
            retry={() => {
              channel.reload();
              thread.reload();
            }}
          />
        )
      ) : null}
      {channelFailed ? null : (
        <>
          {/* The newest messages failed: Try again reads them; an older page failed: its button is still there. */}
          {thread.error && !thread.loaded ? (
            <LoadFailed error={thread.error} retry={thread.reload} />
          ) : (
            <ErrorMessage error={thread.error} />
          )}
          {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a box that scrolls must take the keyboard's focus (WCAG 2.1.1), or its arrows cannot scroll it */}
          <section class="thread" ref={box} onScroll={onScroll} tabIndex={0} aria-label="Messages, oldest first">
            {thread.hasOlder ? (
              <button type="button" class="secondary older" onClick={() => void loadOlder()} disabled={thread.busy}>
                {thread.busy ? 'Loading older messages…' : 'Older messages'}
              </button>
            ) : thread.loaded && shown.length > 0 ? (
              <p class="thread-start">The start of the conversation.</p>
            ) : null}
            {!thread.loaded && thread.busy ? <Loading>Loading messages…</Loading> : null}
            {thread.loaded && shown.length === 0 ? <p class="empty">No messages yet: write the first one below.</p> : null}
            <ol class="messages">
              {shown.map((message) => (
                <li
                  key={message.id}
                  id={`message-${message.id}`}
                  tabIndex={-1}
                  class={message.senderId === person.id ? 'message mine' : 'message'}
                >
                  <p class="message-meta">
                    <strong>{senderName(message, channel.data, person, workspace.name, name)}</strong>{' '}
                    <time dateTime={message.createdAt}>{formatWhen(message.createdAt)}</time>
                  </p>
                  <p class="message-text">{message.text}</p>
                </li>
              ))}
            </ol>
          </section>
          <form class="stack reply" onSubmit={send}>
            <ErrorMessage focus error={sending.error} />
            <Field label="Your message" name="text" hint="Ctrl+Enter sends it too." error={sending.error}>
              {(props) => <textarea {...props} ref={field} rows={3} required maxLength={MESSAGE_MAX} onKeyDown={sendOnCtrlEnter} />}
            </Field>
            <Submit label={sending.busy ? 'Sending…' : 'Send'} busy={sending.busy} />
          </form>
        </>
      )}
      <LiveNote live={live} />
      <Announcer said={said} />
    </>
  );
}
