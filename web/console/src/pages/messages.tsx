import { type Page, path, v1, ok, v1Api } from '../api.js';
import { ChannelHeading, membersOf } from '../channels.js';
import { type Directory, useDirectory } from '../directory.js';
import { Link } from '../router.js';
import type { MessageChannel } from '../types.js';
import { Badge, DataTable, Field, ListState, PageHeading, Pager, formatDate, useLoad, usePaged, FilterForm, useListQuery } from '../ui.js';
import { useWorkspaceName } from '../workspace-layout.js';

/** The membership types of GET /v1/message-channels?membershipType=… */
const MEMBERSHIP_TYPES = ['individual', 'group', 'company'] as const;

/** "the individual channel of Ada Lovelace": a channel named for a heading or a link. */
const channelName = (channel: MessageChannel, names: Directory) => `${channel.membershipType} channel of ${membersOf(channel, names)}`;

export function MessageChannelsPage({ workspaceId }: { workspaceId: string }) {
  const query = useListQuery(
    { membershipType: '' },
    (filters, nextToken) => v1(workspaceId).get<Page<MessageChannel>>('/message-channels', { limit: 25, nextToken, ...filters }),
    [workspaceId],
  );
  const { list } = query;
  const { membershipType } = query.filters;
  const names = useDirectory(workspaceId);
  const base = `/workspaces/${encodeURIComponent(workspaceId)}/messages`;
  const rows = list.data?.data ?? [];
  return (
    <>
      <PageHeading title="Messages" context={useWorkspaceName()} />
      <FilterForm query={query} label="Message channels" submitLabel="Show" clearLabel={null}>
        <Field label="Membership">
          {(props) => (
            <select {...props} name="membershipType">
              {['', ...MEMBERSHIP_TYPES].map((type) => (
                <option key={type} value={type} selected={membershipType === type}>
                  {type || 'Any'}
                </option>
              ))}
            </select>
          )}
        </Field>
      </FilterForm>
      <ListState list={list} empty={membershipType ? `No ${membershipType} channel.` : 'No message channel yet.'} what="message channels" />
      {rows.length > 0 ? (
        <DataTable
          caption={membershipType ? `Message channels (${membershipType}), newest first` : 'Message channels, newest first'}
          columns={['Membership', 'Members', 'Company', 'Last message', 'Created']}
          actions
        >
          {rows.map((channel) => (
            <tr key={channel.id}>
              <td data-label="Membership">
                <Badge value={channel.membershipType} />
              </td>
              <td data-label="Members">{membersOf(channel, names)}</td>
              <td data-label="Company">{names.company(channel.companyId)}</td>
              <td data-label="Last message">{channel.lastMessageDate ? formatDate(channel.lastMessageDate) : 'none yet'}</td>
              <td data-label="Created">{formatDate(channel.createdAt)}</td>
              <td class="actions">
                <Link href={`${base}/${encodeURIComponent(channel.id)}`} aria-label={`Messages of the ${channelName(channel, names)}`}>
                  Messages
                </Link>
              </td>
            </tr>
          ))}
        </DataTable>
      ) : null}
      <Pager list={list} label="Message channels" />
    </>
  );
}

export function ChannelMessagesPage({ workspaceId, params }: { workspaceId: string; params: Record<string, string> }) {
  const api = v1(workspaceId);
  const { channelId } = params;
  const channel = useLoad(() => api.get<MessageChannel>(path`/message-channels/${channelId}`), [workspaceId, channelId]);
  const list = usePaged(
    (nextToken) => ok(v1Api(workspaceId).GET('/v1/messages', { params: { query: { channelId, limit: 25, nextToken } } })),
    [workspaceId, channelId],
  );
  const names = useDirectory(workspaceId);
  const rows = list.data?.data ?? [];
  return (
    <>
      <ChannelHeading
        workspaceId={workspaceId}
        channel={channel}
        names={names}
        title={(data) => (data ? `Messages of the ${channelName(data, names)}` : 'Messages of a channel')}
        back={['messages', 'Back to the message channels']}
      />
      {channel.error ? null : <ListState list={list} empty="No message in this channel yet." what="messages" />}
      {rows.length > 0 ? (
        <DataTable caption="Messages, newest first" columns={['Sent', 'From', 'Message']}>
          {rows.map((message) => (
            <tr key={message.id}>
              <td data-label="Sent">{formatDate(message.createdAt)}</td>
              <td data-label="From">{names.person(message.senderId)}</td>
              <td data-label="Message" class="break pre-line">
                {message.text}
              </td>
            </tr>
          ))}
        </DataTable>
      ) : null}
      <Pager list={list} label="Messages" />
    </>
  );
}
