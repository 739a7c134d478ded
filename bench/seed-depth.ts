// Seeds the depth bench (bench/depth.ts), before any server runs on the database:
// `node --import tsx bench/seed-depth.ts <workspaceId> <messages> <files>` with DATABASE_URL set. A company, an
// admin who sends, and for each family two channels of the company: a message channel of <messages> messages and
// one of 10,000; a file channel of <files> files and one of 10,000. The channels and the sender are made through
// the services, as the API makes them; the messages and files are written as rows, 1,000 a statement, in the shape
// the services give them (numbered messages, the channel's last message date; completed files at a path each), a
// millisecond apart, so a page at any depth is a range of the same index the API reads. Then a WAL checkpoint.
// Prints one JSON line: {"messageChannels": {"deep": id, "shallow": id}, "fileChannels": {…}, "seconds": N}.
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { migrateToLatest } from '../src/db/migrate.js';
import { openDatabase } from '../src/db/open.js';
import type { DB } from '../src/db/schema.js';
import { systemCaller } from '../src/lib/caller.js';
import { createCompany } from '../src/modules/resources/directory/index.js';
import { createChannel as createFileChannel } from '../src/modules/resources/files/files.service.js';
import { createInternalUser } from '../src/modules/resources/internal-users/index.js';
import { createChannel as createMessageChannel } from '../src/modules/resources/messages/messages.service.js';

/** The channel each deep one is compared with. */
const SHALLOW = 10_000;
const ROWS_A_STATEMENT = 1000;
const MAX_ITEMS = 1_000_000;

const [workspaceId, messagesText, filesText] = process.argv.slice(2);
const [messages, files] = [Number(messagesText), Number(filesText)];
if (!workspaceId || ![messages, files].every((n) => Number.isInteger(n) && n >= SHALLOW && n <= MAX_ITEMS)) {
  process.stderr.write(`usage: seed-depth.ts <workspaceId> <messages ${SHALLOW}..${MAX_ITEMS}> <files ${SHALLOW}..${MAX_ITEMS}>\n`);
  process.exit(2);
}
const database = openDatabase(process.env.DATABASE_URL ?? '');
await migrateToLatest(database);
const start = Date.now();
const caller = systemCaller(workspaceId, start);
const company = await createCompany(database, caller, { name: 'Depth Co' });
const sender = await createInternalUser(database, caller, {
  email: 'depth-sender@example.com',
  givenName: 'Depth',
  familyName: 'Sender',
  role: 'admin',
});
const channel = { membershipType: 'company' as const, companyId: company.id };
const messageChannels = {
  deep: (await createMessageChannel(database, caller, channel)).id,
  shallow: (await createMessageChannel(database, caller, channel)).id,
};
const fileChannels = {
  deep: (await createFileChannel(database, caller, channel)).id,
  shallow: (await createFileChannel(database, caller, channel)).id,
};

/** `count` rows of `table`, made by `row(i)`, ROWS_A_STATEMENT to an insert, each insert its own commit. */
async function insertRows<T extends keyof DB>(table: T, count: number, row: (i: number) => Record<string, unknown>) {
  for (let first = 0; first < count; first += ROWS_A_STATEMENT) {
    const rows = Array.from({ length: Math.min(ROWS_A_STATEMENT, count - first) }, (_, k) => row(first + k));
    await database.db
      .insertInto(table)
      .values(rows as never)
      .execute();
  }
}

const iso = (ms: number) => new Date(ms).toISOString();
let seq = 0;
for (const [channelId, count] of [
  [messageChannels.deep, messages],
  [messageChannels.shallow, SHALLOW],
] as const) {
  const first = Date.now() - count; // the newest a millisecond before now: none dated in the future
  await insertRows('messages', count, (i) => ({
    id: randomUUID(),
    workspace_id: workspaceId,
    channel_id: channelId,
    sender_id: sender.id,
    sender_type: 'internalUser',
    text: `Depth message ${i}`,
    created_at: iso(first + i),
    updated_at: iso(first + i),
    seq: ++seq,
  }));
  const last = iso(first + count - 1);
  await database.db
    .updateTable('message_channels')
    .set({ last_message_date: last, activity_key: `m${last}`, updated_at: last })
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', channelId)
    .execute();
}
await database.db
  .insertInto('message_sequences')
  .values({ workspace_id: workspaceId, last_seq: seq })
  .onConflict((oc) => oc.column('workspace_id').doUpdateSet({ last_seq: seq }))
  .execute();

for (const [channelId, count] of [
  [fileChannels.deep, files],
  [fileChannels.shallow, SHALLOW],
] as const) {
  const first = Date.now() - count;
  await insertRows('files', count, (i) => {
    const id = randomUUID();
    return {
      id,
      workspace_id: workspaceId,
      channel_id: channelId,
      object: 'file',
      path: `depth-${String(i).padStart(7, '0')}.txt`,
      name: `depth-${String(i).padStart(7, '0')}.txt`,
      link_url: null,
      client_permissions: null,
      status: 'completed',
      size: 1024,
      content_type: 'text/plain',
      storage_key: `${workspaceId}/${id}`,
      creator_id: null,
      modified_by_id: null,
      modified_by_object: null,
      created_at: iso(first + i),
      updated_at: iso(first + i),
    };
  });
}
if (database.dialect === 'sqlite') await sql`pragma wal_checkpoint(TRUNCATE)`.execute(database.db);
else await sql`analyze`.execute(database.db);
await database.close();
process.stdout.write(`${JSON.stringify({ messageChannels, fileChannels, seconds: (Date.now() - start) / 1000 })}\n`);
