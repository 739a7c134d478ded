/** File channels and their files, folders and links (modules/resources/files). */

type FileChannelMembership = 'individual' | 'group' | 'company';
export type ClientPermissions = 'read_write' | 'read_only';

export interface FileChannelsTable {
  id: string;
  workspace_id: string;
  membership_type: FileChannelMembership;
  /** the company of the channel (given, or that of its clients) */
  company_id: string;
  /** individual channels: their client; null otherwise */
  client_id: string | null;
  /** the client members, comma-separated in the order given ('' for a company channel) */
  member_ids: string;
  /** what clients may do at the channel's root */
  root_client_permissions: ClientPermissions;
  created_at: string;
  updated_at: string;
}

interface FileChannelMembersTable {
  channel_id: string;
  client_id: string;
}

type FileObjectType = 'file' | 'folder' | 'link';

export interface FilesTable {
  id: string;
  workspace_id: string;
  channel_id: string;
  object: FileObjectType;
  /** the full path inside the channel, segments joined by '/', unique in the channel */
  path: string;
  /** the last segment of the path */
  name: string;
  /** links: where they point */
  link_url: string | null;
  /** folders: what clients may do in them */
  client_permissions: ClientPermissions | null;
  /** files: `pending` until their content is uploaded, then `completed`; folders and links: `completed` */
  status: 'pending' | 'completed';
  /** files: the content's size in bytes, once uploaded */
  size: number | null;
  /** files: the content type the upload declared */
  content_type: string | null;
  /** files: the content's key in the file store, once uploaded */
  storage_key: string | null;
  /** the client or internal user who created it (null: an API key) */
  creator_id: string | null;
  modified_by_id: string | null;
  modified_by_object: 'client' | 'internalUser' | null;
  created_at: string;
  updated_at: string;
}

export interface FilesTables {
  file_channels: FileChannelsTable;
  file_channel_members: FileChannelMembersTable;
  files: FilesTable;
}
