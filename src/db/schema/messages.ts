/** Message channels and their messages (modules/resources/messages). */

type MessageChannelMembership = 'individual' | 'group' | 'company';

export interface MessageChannelsTable {
  id: string;
  workspace_id: string;
  membership_type: MessageChannelMembership;
  /** the company of the channel (given, or that of its clients) */
  company_id: string;
  /** individual channels: their client; null otherwise (the `clientId` filter ranges over it) */
  client_id: string | null;
  /** the client members, comma-separated in the order given ('' for a company channel) */
  member_ids: string;
  /** the newest message's createdAt; null while there is none */
  last_message_date: string | null;
  /** The inbox order, newest activity first: `m` + last_message_date, or `c` + created_at while there is no message. */
  activity_key: string;
  created_at: string;
  updated_at: string;
}

/** One row per client member of an individual or group channel: "the channels of a client" is an indexed lookup. */
interface MessageChannelMembersTable {
  channel_id: string;
  client_id: string;
}

type MessageSenderType = 'client' | 'internalUser';

export interface MessagesTable {
  id: string;
  workspace_id: string;
  channel_id: string;
  sender_id: string;
  sender_type: MessageSenderType;
  text: string;
  created_at: string;
  updated_at: string;
  /** its number in its workspace, in the order messages commit (from message_sequences): where a stream resumes */
  seq: number;
}

/** A workspace's last message number: taken, and moved on, in the transaction of each message it numbers. */
interface MessageSequencesTable {
  workspace_id: string;
  last_seq: number;
}

export interface MessagesTables {
  message_channels: MessageChannelsTable;
  message_channel_members: MessageChannelMembersTable;
  messages: MessagesTable;
  message_sequences: MessageSequencesTable;
}
