import { type Kysely, sql } from 'kysely';
import type { MigrationFactory } from './migration.js';

/**
 * Issue 44 (point 2): a workspace's messages are numbered in the order they commit (`messages.seq`, from the
 * per-workspace counter `message_sequences`, incremented in the message's own transaction as invoice numbers are:
 * its row lock orders concurrent sends, and a rolled-back send gives its number back). A stream of messages resumes
 * after a number (`GET /v1/messages/stream`): whatever commits later has a higher one, so nothing is skipped, which a
 * position by `created_at` (the request's time, not the commit's) could not promise. The messages written before
 * are numbered in their list order, oldest first, and each workspace's counter starts after them.
 */
export const messageSequence: MigrationFactory = () => ({
  // biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not as typed today
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('message_sequences')
      .addColumn('workspace_id', 'text', (c) => c.primaryKey().references('workspaces.id').onDelete('cascade'))
      .addColumn('last_seq', 'integer', (c) => c.notNull())
      .execute();
    await db.schema
      .alterTable('messages')
      .addColumn('seq', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await sql`
      update messages set seq = numbered.n
      from (select id, row_number() over (partition by workspace_id order by created_at, id) as n from messages) as numbered
      where messages.id = numbered.id`.execute(db);
    await sql`
      insert into message_sequences (workspace_id, last_seq)
      select workspace_id, max(seq) from messages group by workspace_id`.execute(db);
    await db.schema.createIndex('messages_seq').on('messages').columns(['workspace_id', 'seq']).unique().execute();
  },
});
