import { useState } from 'preact/hooks';
import { type Page, path, v1 } from '../api.js';
import { ChannelHeading, membersOf } from '../channels.js';
import { type Directory, useDirectory } from '../directory.js';
import { Link } from '../router.js';
import type { FileChannel, FileObject } from '../types.js';
import {
  Badge,
  DataTable,
  Field,
  ListState,
  PageHeading,
  Pager,
  SearchForm,
  formatDate,
  useLoad,
  usePaged,
  FilterForm,
  useListQuery,
} from '../ui.js';
import { useWorkspaceName } from '../workspace-layout.js';

/** The membership types of GET /v1/channels/files?membershipType=… */
const MEMBERSHIP_TYPES = ['individual', 'group', 'company'] as const;

/** The list filters of GET /v1/channels/files (exact matches). */
type Filters = {
  membershipType: string;
  memberId: string;
  clientId: string;
  companyId: string;
};

const NO_FILTERS: Filters = { membershipType: '', memberId: '', clientId: '', companyId: '' };

/** "the individual file channel of Ada Lovelace": a channel named for a heading or a link. */
const channelName = (channel: FileChannel, names: Directory) => `${channel.membershipType} file channel of ${membersOf(channel, names)}`;

/** 1536 → "1.5 KB": a file's size for reading; the exact bytes are in its title. */
function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${new Intl.NumberFormat(undefined, { maximumFractionDigits: 1 }).format(value)} ${units[unit]}`;
}

export function FileChannelsPage({ workspaceId }: { workspaceId: string }) {
  const query = useListQuery(
    NO_FILTERS,
    (filters, nextToken) => v1(workspaceId).get<Page<FileChannel>>('/channels/files', { limit: 25, nextToken, ...filters }),
    [workspaceId],
  );
  const { filters, filtered, list } = query;
  const names = useDirectory(workspaceId);
  const base = `/workspaces/${encodeURIComponent(workspaceId)}/files`;

  const rows = list.data?.data ?? [];
  return (
    <>
      <PageHeading title="Files" context={useWorkspaceName()} />
      <FilterForm query={query} label="File channels">
        <Field label="Membership">
          {(props) => (
            <select {...props} name="membershipType">
              {['', ...MEMBERSHIP_TYPES].map((type) => (
                <option key={type} value={type} selected={filters.membershipType === type}>
                  {type || 'Any'}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Member id" hint="A client’s or internal user’s channels.">
          {(props) => <input {...props} name="memberId" class="mono" defaultValue={filters.memberId} />}
        </Field>
        <Field label="Client id" hint="Its individual channels.">
          {(props) => <input {...props} name="clientId" class="mono" defaultValue={filters.clientId} />}
        </Field>
        <Field label="Company id">{(props) => <input {...props} name="companyId" class="mono" defaultValue={filters.companyId} />}</Field>
      </FilterForm>
      <ListState list={list} empty={filtered ? 'No file channel matches these filters.' : 'No file channel yet.'} what="file channels" />
      {rows.length > 0 ? (
        <DataTable
          caption={filtered ? 'File channels matching the filters, newest first' : 'File channels, newest first'}
          columns={['Membership', 'Members', 'Company', 'Created']}
          actions
        >
          {rows.map((channel) => (
            <tr key={channel.id}>
              <td data-label="Membership">
                <Badge value={channel.membershipType} />
              </td>
              <td data-label="Members">{membersOf(channel, names)}</td>
              <td data-label="Company">{names.company(channel.companyId)}</td>
              <td data-label="Created">{formatDate(channel.createdAt)}</td>
              <td class="actions">
                <Link href={`${base}/${encodeURIComponent(channel.id)}`} aria-label={`Files of the ${channelName(channel, names)}`}>
                  Files
                </Link>
              </td>
            </tr>
          ))}
        </DataTable>
      ) : null}
      <Pager list={list} label="File channels" />
    </>
  );
}

/** A file's state: its upload's status and size; a folder's client permissions; a link's target (as text, never followed). */
function detailsOf(file: FileObject) {
  if (file.object === 'folder') return file.clientPermissions ? `clients: ${file.clientPermissions}` : '—';
  if (file.object === 'link') return file.linkUrl ?? '—';
  return file.contentType ?? '—';
}

export function ChannelFilesPage({ workspaceId, params }: { workspaceId: string; params: Record<string, string> }) {
  const api = v1(workspaceId);
  const { channelId } = params;
  const [folder, setFolder] = useState('');
  const channel = useLoad(() => api.get<FileChannel>(path`/channels/files/${channelId}`), [workspaceId, channelId]);
  const list = usePaged(
    (nextToken) => api.get<Page<FileObject>>('/files', { channelId, path: folder, limit: 25, nextToken }),
    [workspaceId, channelId, folder],
  );
  const names = useDirectory(workspaceId);
  const rows = list.data?.data ?? [];
  return (
    <>
      <ChannelHeading
        workspaceId={workspaceId}
        channel={channel}
        names={names}
        title={(data) => (data ? `Files of the ${channelName(data, names)}` : 'Files of a channel')}
        back={['files', 'Back to the file channels']}
      />
      <SearchForm
        label="Files"
        submitLabel="Show"
        onSearch={(data) => setFolder(String(data.get('path') ?? '').trim())}
        buttons={
          folder ? (
            <button type="reset" class="secondary" onClick={() => setFolder('')}>
              Whole channel
            </button>
          ) : null
        }
      >
        <Field label="Inside folder" hint="A folder’s path: what is in it, at any depth.">
          {(props) => <input {...props} name="path" class="mono" defaultValue={folder} />}
        </Field>
      </SearchForm>
      {channel.error ? null : (
        <ListState
          list={list}
          empty={folder ? 'Nothing inside this folder.' : 'No file, folder or link in this channel yet.'}
          what="files"
        />
      )}
      {rows.length > 0 ? (
        <DataTable
          caption={folder ? `Files, folders and links inside ${folder}, newest first` : 'Files, folders and links, newest first'}
          columns={['Path', 'Type', 'Status', 'Size', 'Details', 'Created']}
        >
          {rows.map((file) => (
            <tr key={file.id}>
              <td data-label="Path" class="break mono">
                {file.path}
              </td>
              <td data-label="Type">{file.object}</td>
              <td data-label="Status">{file.status ? <Badge value={file.status} /> : '—'}</td>
              <td data-label="Size">{file.size === undefined ? '—' : <span title={`${file.size} bytes`}>{formatSize(file.size)}</span>}</td>
              <td data-label="Details" class="break small">
                {detailsOf(file)}
              </td>
              <td data-label="Created">{formatDate(file.createdAt)}</td>
            </tr>
          ))}
        </DataTable>
      ) : null}
      <Pager list={list} label="Files" />
    </>
  );
}
