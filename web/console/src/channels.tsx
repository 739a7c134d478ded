import type { Directory } from './directory.js';
import { Link } from './router.js';
import type { Loaded } from '../../kit/ui.js';
import { ErrorMessage, PageHeading, formatDate } from './ui.js';
import { useWorkspaceName } from './workspace-layout.js';

/** A channel of messages or files: one client, a group of clients, or a company. */
interface Channel {
  id: string;
  membershipType: 'individual' | 'group' | 'company';
  clientId?: string;
  companyId: string;
  memberIds?: string[];
  createdAt: string;
}

/** Who a channel is shared with: its client, its group's clients, or its company. */
export function membersOf(channel: Channel, names: Directory): string {
  if (channel.membershipType === 'company') return names.company(channel.companyId);
  const members = channel.memberIds ?? (channel.clientId ? [channel.clientId] : []);
  return members.map(names.client).join(', ') || '—';
}

/**
 * The top of one channel's page (its messages, its files): its heading ("Files of the individual file channel of
 * Ada Lovelace", `title` given the channel's name), the way back to the list of channels (`back`: the section's
 * path and name), and the channel's company, creation and id.
 */
export function ChannelHeading<C extends Channel>({
  workspaceId,
  channel,
  names,
  title,
  back,
}: {
  workspaceId: string;
  channel: Loaded<C>;
  names: Directory;
  title: (channel: C | undefined) => string;
  back: [section: string, label: string];
}) {
  const data = channel.data;
  return (
    <>
      <PageHeading title={title(data)} context={useWorkspaceName()} />
      <p>
        <Link href={`/workspaces/${encodeURIComponent(workspaceId)}/${back[0]}`}>{back[1]}</Link>
      </p>
      <ErrorMessage error={channel.error} />
      {data ? (
        <p>
          Company: {names.company(data.companyId)} · created {formatDate(data.createdAt)} · id <span class="mono small">{data.id}</span>
        </p>
      ) : null}
    </>
  );
}
