import { type Kysely, sql } from 'kysely';
import { clientTerms, nameTerms } from '../../lib/search-terms.js';
import type { MigrationFactory } from './migration.js';

/**
 * Issue 45 (the staff's portal), points 1 and 2.
 *
 * Search: `client_search_terms` and `company_search_terms` hold each client's and company's terms (lib/search-terms.ts:
 * from each word of the name to its end, and a client's e-mail), so that a prefix query is a range of the primary key
 * `(workspace_id, term, …)` on both dialects. Compared by code point: SQLite's BINARY, and PostgreSQL's "C" collation
 * on the column (a database's own collation, en_US say, orders "a-b" and "ab" otherwise, and a range would not be a
 * prefix). A term goes with its client or company. The terms of the rows before this migration are written here, in
 * batches.
 *
 * Inbox order: `message_channels.activity_key` orders channels by their last activity, newest first: `m` and the last
 * message's date, or `c` and the creation date while a channel has none (`m` sorts above `c`, so channels without a
 * message come after the others). Kept with `last_message_date` by the message's own write; indexed for the list.
 */
export const searchAndInbox: MigrationFactory = (dialect) => ({
  // biome-ignore lint/suspicious/noExplicitAny: migrations run against the schema as it was, not as typed today
  async up(db: Kysely<any>) {
    const byCodePoint = dialect === 'postgres' ? sql`collate "C"` : sql``;
    for (const [table, owner, ownerTable] of [
      ['client_search_terms', 'client_id', 'clients'],
      ['company_search_terms', 'company_id', 'companies'],
    ] as const) {
      await db.schema
        .createTable(table)
        .addColumn('workspace_id', 'text', (c) => c.notNull())
        .addColumn('term', 'text', (c) => c.notNull().modifyEnd(byCodePoint))
        .addColumn(owner, 'text', (c) => c.notNull().references(`${ownerTable}.id`).onDelete('cascade'))
        .addPrimaryKeyConstraint(`${table}_pk`, ['workspace_id', 'term', owner])
        .execute();
      // A client's (a company's) own terms: deleted with a rename, and probed by a search that reads the list's order.
      await db.schema.createIndex(`${table}_owner`).on(table).columns([owner, 'term']).execute();
    }
    await backfill(db, 'clients', 'client_search_terms', 'client_id', ['given_name', 'family_name', 'email'], (row) =>
      clientTerms(row.given_name, row.family_name, row.email),
    );
    await backfill(db, 'companies', 'company_search_terms', 'company_id', ['name'], (row) => nameTerms(row.name));

    await db.schema
      .alterTable('message_channels')
      .addColumn('activity_key', 'text', (c) => c.notNull().defaultTo('').modifyEnd(byCodePoint))
      .execute();
    await sql`
      update message_channels set activity_key = case
        when last_message_date is null then 'c' || created_at else 'm' || last_message_date end`.execute(db);
    await db.schema
      .createIndex('message_channels_activity_page')
      .on('message_channels')
      .columns(['workspace_id', 'activity_key', 'id'])
      .execute();
  },
});

const BATCH = 500;

/** Every row's terms, a batch of rows at a time in id order (a workspace of 100,000 clients is 200 batches). */
async function backfill(
  // biome-ignore lint/suspicious/noExplicitAny: the schema as it was
  db: Kysely<any>,
  from: string,
  into: string,
  owner: string,
  columns: string[],
  // biome-ignore lint/suspicious/noExplicitAny: the row as read
  termsOf: (row: any) => string[],
): Promise<void> {
  let after = '';
  for (;;) {
    const rows = await db
      .selectFrom(from)
      .select(['id', 'workspace_id', ...columns])
      .where('id', '>', after)
      .orderBy('id')
      .limit(BATCH)
      .execute();
    if (rows.length === 0) return;
    const values = rows.flatMap((row) => termsOf(row).map((term) => ({ workspace_id: row.workspace_id, term, [owner]: row.id })));
    for (let i = 0; i < values.length; i += BATCH)
      await db
        .insertInto(into)
        .values(values.slice(i, i + BATCH))
        .execute();
    after = rows[rows.length - 1].id;
  }
}
