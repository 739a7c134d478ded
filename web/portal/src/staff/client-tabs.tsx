// A client's things on its staff page (/clients/<id>?tab=…): Messages, Files, Invoices, Tasks, Forms, Contracts, as a
// WAI-ARIA tablist (arrow keys, Home and End move between the tabs and show each at once). The tab shown is in the
// address (`?tab=files`): a reload and the back button come back to it. Each tab reads its list from /v1, filtered for
// the client by the server and paged by it (`nextToken`), only once it is shown; each item links to its page in its
// section. What the person may see is the API's answer: nothing is filtered here.
import { useRef, useState } from 'preact/hooks';
import type { JSX } from 'preact';
import type { Answer, Item } from '../../../kit/api.js';
import { DataTable, ListState, Pager, type Paged, usePaged } from '../../../kit/list.js';
import { ok, v1 } from '../api.js';
import { channelNamesWanted, conversationName, membersLine } from '../messaging.js';
import { type NameWanted, useNames } from '../names.js';
import { StatusBadge as InvoiceStatus, formatDay, formatMoney, invoiceTitle } from '../pages/billing-parts.js';
import { Link } from '../router.js';
import { useSignedIn } from '../signed-in.js';
import { formatDue, formatWhen } from '../work.js';

type Client = Answer<'/v1/clients/{id}'>;

/** The tabs, in order: each its address (`?tab=`), its label, and what it lists. */
const TABS = [
  { id: 'messages', label: 'Messages', Panel: MessagesTab },
  { id: 'files', label: 'Files', Panel: FilesTab },
  { id: 'invoices', label: 'Invoices', Panel: InvoicesTab },
  { id: 'tasks', label: 'Tasks', Panel: TasksTab },
  { id: 'forms', label: 'Forms', Panel: FormsTab },
  { id: 'contracts', label: 'Contracts', Panel: ContractsTab },
] as const;

type TabId = (typeof TABS)[number]['id'];

/** Items a page holds in a tab (the server pages; Next page follows its nextToken). */
const PAGE_SIZE = 10;

/** The tab the address names (`?tab=`), else the first. */
function tabInAddress(): TabId {
  const wanted = new URLSearchParams(window.location.search).get('tab');
  return TABS.find((tab) => tab.id === wanted)?.id ?? TABS[0].id;
}

/**
 * The tab chosen, written into the address as a new history entry (back shows the tab before). Not navigate(): the
 * page stays as it is (a navigation would open it again); the back button's popstate opens it again at that tab.
 */
function showInAddress(tab: TabId) {
  const params = new URLSearchParams(window.location.search);
  params.set('tab', tab);
  window.history.pushState(window.history.state, '', `${window.location.pathname}?${params}`);
}

export function ClientTabs({ client }: { client: Client }) {
  const [selected, setSelected] = useState<TabId>(tabInAddress);
  const tabs = useRef<(HTMLButtonElement | null)[]>([]);
  const choose = (tab: TabId, focus: boolean) => {
    if (tab !== selected) {
      setSelected(tab);
      showInAddress(tab);
    }
    if (focus) tabs.current[TABS.findIndex((t) => t.id === tab)]?.focus();
  };
  const onKeyDown = (event: KeyboardEvent) => {
    const at = TABS.findIndex((tab) => tab.id === selected);
    const to =
      event.key === 'ArrowRight'
        ? (at + 1) % TABS.length
        : event.key === 'ArrowLeft'
          ? (at - 1 + TABS.length) % TABS.length
          : event.key === 'Home'
            ? 0
            : event.key === 'End'
              ? TABS.length - 1
              : -1;
    if (to < 0) return;
    event.preventDefault();
    choose(TABS[to].id, true);
  };
  return (
    <section class="client-tabs" aria-labelledby="client-things">
      <h2 id="client-things">The client’s things</h2>
      <div role="tablist" aria-labelledby="client-things" class="tablist" onKeyDown={onKeyDown}>
        {TABS.map((tab, index) => (
          <button
            key={tab.id}
            ref={(element) => {
              tabs.current[index] = element;
            }}
            type="button"
            role="tab"
            id={`client-tab-${tab.id}`}
            aria-selected={tab.id === selected ? 'true' : 'false'}
            aria-controls={`client-panel-${tab.id}`}
            tabIndex={tab.id === selected ? 0 : -1}
            onClick={() => choose(tab.id, false)}
          >
            {tab.label}
          </button>
        ))}
      </div>
      {/* Every panel is there for its tab to name; only the one shown has (and loads) its content. */}
      {TABS.map(({ id, Panel }) => (
        <div
          key={id}
          role="tabpanel"
          id={`client-panel-${id}`}
          aria-labelledby={`client-tab-${id}`}
          // biome-ignore lint/a11y/noNoninteractiveTabindex: a tab panel takes the focus after its tablist (WAI-ARIA tabs pattern)
          tabIndex={0}
          hidden={id !== selected}
          class="tabpanel"
        >
          {id === selected ? <Panel client={client} /> : null}
        </div>
      ))}
    </section>
  );
}

/** A tab's list: its state (loading, failed with Try again, empty), its table and its pages. */
function TabList<T>({
  list,
  what,
  empty,
  caption,
  columns,
  row,
}: {
  list: Paged<T>;
  what: string;
  empty: string;
  caption: string;
  columns: string[];
  row: (item: T) => JSX.Element;
}) {
  const rows = list.data?.data ?? [];
  return (
    <>
      <ListState list={list} what={what} empty={empty} />
      {rows.length > 0 ? (
        <DataTable caption={caption} columns={columns}>
          {rows.map(row)}
        </DataTable>
      ) : null}
      <Pager list={list} label={caption} />
    </>
  );
}

const named = (client: Client) => `${client.givenName} ${client.familyName}`.trim() || client.email;

// --- Messages: the conversations the client is in ---------------------------------------------------------------

type Channel = Item<'/v1/message-channels'>;

function MessagesTab({ client }: { client: Client }) {
  const { person, workspace } = useSignedIn();
  // memberId: its own conversations, its groups' and its companies' (clientId would list its own ones only).
  const list = usePaged<Channel>(
    (nextToken) =>
      ok(
        v1.GET('/v1/message-channels', {
          params: { query: { memberId: client.id, orderBy: 'lastMessageDate', limit: PAGE_SIZE, nextToken } },
        }),
      ),
    [client.id],
  );
  const name = useNames(
    person,
    (list.data?.data ?? []).flatMap((channel) => channelNamesWanted(channel, person)),
  );
  return (
    <TabList
      list={list}
      what="the conversations"
      empty={`${named(client)} is in no conversation yet.`}
      caption="Conversations, latest message first"
      columns={['Conversation', 'Who is in it', 'Last message']}
      row={(channel: Channel) => (
        <tr key={channel.id}>
          <td data-label="Conversation" class="break">
            <Link href={`/messages/${encodeURIComponent(channel.id)}`}>
              {conversationName(channel, person, workspace.name, name) ?? '…'}
            </Link>
          </td>
          <td data-label="Who is in it">{membersLine(channel, person, workspace.name)}</td>
          <td data-label="Last message">{channel.lastMessageDate ? formatWhen(channel.lastMessageDate) : 'None yet'}</td>
        </tr>
      )}
    />
  );
}

// --- Files: the file channels the client is in, each with its files ----------------------------------------------

type FileChannel = Item<'/v1/channels/files'>;
type FileObject = Item<'/v1/files'>;

/** A channel's name as staff read it: whose it is. */
function fileChannelName(channel: FileChannel, name: ReturnType<typeof useNames>): string {
  if (channel.membershipType === 'company') {
    const company = name('company', channel.companyId);
    return company === undefined ? '…' : `Everyone at ${company ?? 'a company no longer listed'}`;
  }
  const members = (channel.memberIds ?? (channel.clientId ? [channel.clientId] : [])).map((id) => name('client', id));
  if (members.some((m) => m === undefined)) return '…';
  return members.map((m) => m ?? 'a client no longer listed').join(', ') || 'Nobody';
}

function FilesTab({ client }: { client: Client }) {
  const { person } = useSignedIn();
  // The files API lists a channel's files (channelId is required): the client's channels first, then each one's files.
  const list = usePaged<FileChannel>(
    (nextToken) => ok(v1.GET('/v1/channels/files', { params: { query: { memberId: client.id, limit: 5, nextToken } } })),
    [client.id],
  );
  const channels = list.data?.data ?? [];
  const name = useNames(
    person,
    channels.flatMap((channel): NameWanted[] =>
      channel.membershipType === 'company'
        ? [['company', channel.companyId]]
        : (channel.memberIds ?? (channel.clientId ? [channel.clientId] : [])).map((id): NameWanted => ['client', id]),
    ),
  );
  return (
    <>
      <ListState list={list} what="the file channels" empty={`${named(client)} shares no files yet.`} />
      {channels.map((channel) => (
        <ChannelFiles key={channel.id} channel={channel} title={fileChannelName(channel, name)} />
      ))}
      <Pager list={list} label="File channels" />
    </>
  );
}

const KIND_WORDS: Record<FileObject['object'], string> = { file: 'File', folder: 'Folder', link: 'Link' };

function ChannelFiles({ channel, title }: { channel: FileChannel; title: string }) {
  const list = usePaged<FileObject>(
    (nextToken) => ok(v1.GET('/v1/files', { params: { query: { channelId: channel.id, limit: PAGE_SIZE, nextToken } } })),
    [channel.id],
  );
  const channelHref = `/files/${encodeURIComponent(channel.id)}`;
  const heading = `files-${channel.id}`;
  return (
    <section class="channel-files" aria-labelledby={heading}>
      <h3 id={heading}>
        <Link href={channelHref}>{title}</Link>
      </h3>
      <TabList
        list={list}
        what="the files"
        empty="Nothing in this channel yet."
        caption={`Files shared with ${title}`}
        columns={['Name', 'Kind', 'Changed']}
        row={(item: FileObject) => (
          <tr key={item.id}>
            <td data-label="Name" class="break">
              {/* A folder opens in Files; anything else, the channel it is in (a file has no page of its own). */}
              <Link href={item.object === 'folder' ? `${channelHref}/${encodeURIComponent(item.id)}` : channelHref}>{item.path}</Link>
            </td>
            <td data-label="Kind">{KIND_WORDS[item.object] ?? item.object}</td>
            <td data-label="Changed">{formatWhen(item.updatedAt ?? item.createdAt)}</td>
          </tr>
        )}
      />
    </section>
  );
}

// --- Invoices: those billed to the client -------------------------------------------------------------------------

type Invoice = Item<'/v1/invoices'>;

function InvoicesTab({ client }: { client: Client }) {
  const list = usePaged<Invoice>(
    (nextToken) => ok(v1.GET('/v1/invoices', { params: { query: { clientId: client.id, limit: PAGE_SIZE, nextToken } } })),
    [client.id],
  );
  return (
    <TabList
      list={list}
      what="the invoices"
      empty={`No invoice billed to ${named(client)} yet.`}
      caption="Invoices, newest first"
      columns={['Invoice', 'Total', 'Status', 'Due']}
      row={(invoice: Invoice) => (
        <tr key={invoice.id}>
          <td data-label="Invoice">
            <Link href={`/billing/invoices/${encodeURIComponent(invoice.id)}`}>{invoiceTitle(invoice)}</Link>
          </td>
          <td data-label="Total">{formatMoney(invoice.total, invoice.currency)}</td>
          <td data-label="Status">
            <InvoiceStatus status={invoice.status} />
          </td>
          <td data-label="Due">{invoice.status === 'void' || invoice.status === 'draft' ? '—' : formatDay(invoice.dueDate)}</td>
        </tr>
      )}
    />
  );
}

// --- Tasks: those assigned to the client --------------------------------------------------------------------------

type Task = Item<'/v1/tasks'>;
const TASK_WORDS: Record<Task['status'], string> = { todo: 'To do', inProgress: 'In progress', completed: 'Done' };

function TasksTab({ client }: { client: Client }) {
  const list = usePaged<Task>(
    (nextToken) => ok(v1.GET('/v1/tasks', { params: { query: { clientId: client.id, limit: PAGE_SIZE, nextToken } } })),
    [client.id],
  );
  return (
    <TabList
      list={list}
      what="the tasks"
      empty={`No task assigned to ${named(client)} yet.`}
      caption="Tasks, newest first"
      columns={['Task', 'Status', 'Due']}
      row={(task: Task) => (
        <tr key={task.id}>
          <td data-label="Task" class="break">
            <Link href={`/tasks/${encodeURIComponent(task.id)}`}>{task.name}</Link>
          </td>
          <td data-label="Status">
            <span class={`badge badge-${task.status}`}>{TASK_WORDS[task.status]}</span>
          </td>
          <td data-label="Due">{task.dueDate ? formatDue(task.dueDate) : 'No due date'}</td>
        </tr>
      )}
    />
  );
}

// --- Forms: the forms asked of the client -------------------------------------------------------------------------

type FormResponse = Item<'/v1/form-responses'>;
const FORM_WORDS: Record<FormResponse['status'], string> = { pending: 'Waiting for an answer', completed: 'Answered' };

function FormsTab({ client }: { client: Client }) {
  const list = usePaged<FormResponse>(
    (nextToken) => ok(v1.GET('/v1/form-responses', { params: { query: { clientId: client.id, limit: PAGE_SIZE, nextToken } } })),
    [client.id],
  );
  return (
    <TabList
      list={list}
      what="the forms"
      empty={`No form asked of ${named(client)} yet.`}
      caption="Forms, newest first"
      columns={['Form', 'Status', 'Asked on']}
      row={(response: FormResponse) => (
        <tr key={response.id}>
          <td data-label="Form" class="break">
            <Link href={`/forms/${encodeURIComponent(response.id)}`}>{response.formName}</Link>
          </td>
          <td data-label="Status">
            <span class={`badge badge-${response.status}`}>{FORM_WORDS[response.status]}</span>
          </td>
          <td data-label="Asked on">{formatWhen(response.createdAt)}</td>
        </tr>
      )}
    />
  );
}

// --- Contracts: those sent to the client --------------------------------------------------------------------------

type Contract = Item<'/v1/contracts'>;
const CONTRACT_WORDS: Record<Contract['status'], string> = { pending: 'Waiting for a signature', signed: 'Signed' };

function ContractsTab({ client }: { client: Client }) {
  const list = usePaged<Contract>(
    (nextToken) => ok(v1.GET('/v1/contracts', { params: { query: { clientId: client.id, limit: PAGE_SIZE, nextToken } } })),
    [client.id],
  );
  return (
    <TabList
      list={list}
      what="the contracts"
      empty={`No contract sent to ${named(client)} yet.`}
      caption="Contracts, newest first"
      columns={['Contract', 'Status', 'Sent on']}
      row={(contract: Contract) => (
        <tr key={contract.id}>
          <td data-label="Contract" class="break">
            <Link href={`/contracts/${encodeURIComponent(contract.id)}`}>{contract.name}</Link>
          </td>
          <td data-label="Status">
            <span class={`badge badge-${contract.status}`}>{CONTRACT_WORDS[contract.status]}</span>
          </td>
          <td data-label="Sent on">{formatWhen(contract.shareDate)}</td>
        </tr>
      )}
    />
  );
}
