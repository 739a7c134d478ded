// Seeds a workspace for the benchmark, before any server runs on the database:
// `node --import tsx bench/seed-clients.ts <workspaceId> <count>` with DATABASE_URL set. 100 companies,
// then <count> clients (0 for companies only) spread over them, through the same service code as the
// API (clients, client_companies and audit_log rows alike), 100 creates at a time (group-committed on
// SQLite), 200 invoices (when clients are seeded), a message sender (an admin) with a company message channel
// (200 messages when clients are seeded; else one channel per company, for the sends), a company file channel of 200
// files (when clients are seeded: written as rows, as bench/seed-depth.ts writes them), then a WAL checkpoint. 100,000
// clients take about 20 s on a 2-core machine.
// Prints one JSON line: {"clientIds": [every ~hundredth id], "companyIds": [...], "messageChannelIds": [...],
// "fileChannelId": id or null, "senderId": …, "seconds": N}.
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { flagForWebhooksWhen } from '../src/audit/index.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { openDatabase } from '../src/db/open.js';
import { systemCaller } from '../src/lib/caller.js';
import { InProcessEventBus } from '../src/lib/event-bus.js';
import { createInvoice } from '../src/modules/resources/billing/index.js';
import { createClient, createCompany } from '../src/modules/resources/directory/index.js';
import { createChannel as createFileChannel } from '../src/modules/resources/files/files.service.js';
import { createInternalUser } from '../src/modules/resources/internal-users/index.js';
import { createChannel, sendMessage } from '../src/modules/resources/messages/messages.service.js';

const [workspaceId, countText] = process.argv.slice(2);
const count = Number(countText);
if (!workspaceId || !Number.isInteger(count) || count < 0 || count > 1_000_000) {
  process.stderr.write('usage: seed-clients.ts <workspaceId> <count 0..1000000>\n');
  process.exit(2);
}
const database = openDatabase(process.env.DATABASE_URL ?? '');
await migrateToLatest(database);
// The rows as a running server writes them where no webhook endpoint exists: not flagged for its webhook worker.
// (Written by another process, each entry would be flagged, and the server's first start would clear the backlog,
// in chunks: bench/README.md, issue 30.)
flagForWebhooksWhen(database, () => false);
const start = Date.now();
const companyIds: string[] = [];
for (let i = 0; i < 100; i++)
  companyIds.push((await createCompany(database, systemCaller(workspaceId, start), { name: `Seed company ${i}` })).id);
const clientIds: string[] = [];
const CHUNK = 100;
for (let first = 0; first < count; first += CHUNK) {
  const chunk = Array.from({ length: Math.min(CHUNK, count - first) }, (_, k) => first + k);
  const created = await Promise.all(
    chunk.map((i) =>
      createClient(
        database,
        systemCaller(workspaceId, start + i),
        { email: `seed-${i}@example.com`, givenName: `Given${i}`, familyName: `Family${i}`, companyId: companyIds[i % companyIds.length] },
        { portalUrl: 'http://127.0.0.1' },
      ),
    ),
  );
  clientIds.push(...created.map((client) => client.id));
}
// Invoices for the invoice list (each in its own transaction: its number), the workspace's companies billed in turn.
const INVOICES = count > 0 ? 200 : 0;
for (let i = 0; i < INVOICES; i++) {
  await createInvoice(database, systemCaller(workspaceId, start + count + i), {
    companyId: companyIds[i % companyIds.length],
    lineItems: [{ amount: 1000 + i, quantity: 1, description: 'Seeded' }],
    taxPercentage: 8.25,
    daysUntilDue: 14,
  });
}
// The messages: a sender who sees every company; the read workspace's channel holds 200 messages, the write
// workspace gets a channel per company (the sends spread over them, as the client creations over companies).
const at = start + count + INVOICES;
const sender = await createInternalUser(database, systemCaller(workspaceId, at), {
  email: 'bench-sender@example.com',
  givenName: 'Bench',
  familyName: 'Sender',
  role: 'admin',
});
const messageChannelIds: string[] = [];
for (const companyId of count > 0 ? companyIds.slice(0, 1) : companyIds) {
  messageChannelIds.push((await createChannel(database, systemCaller(workspaceId, at), { membershipType: 'company', companyId })).id);
}
const MESSAGES = count > 0 ? 200 : 0;
const noStreams = new InProcessEventBus(); // no server runs yet: nobody listens
for (let i = 0; i < MESSAGES; i++) {
  await sendMessage(
    database,
    systemCaller(workspaceId, at + 1 + i),
    { channelId: messageChannelIds[0], senderId: sender.id, text: `Seeded message ${i}` },
    noStreams,
  );
}
// The files: a company channel of the read workspace with 200 completed files, one statement, in the shape an upload
// leaves them (their content is never read: the page lists them).
const FILES = count > 0 ? 200 : 0;
let fileChannelId: string | null = null;
if (FILES > 0) {
  const filesAt = at + 1 + MESSAGES;
  fileChannelId = (
    await createFileChannel(database, systemCaller(workspaceId, filesAt), { membershipType: 'company', companyId: companyIds[0] })
  ).id;
  const channelId = fileChannelId;
  const files = Array.from({ length: FILES }, (_, i) => {
    const id = randomUUID();
    const name = `seeded-${String(i).padStart(3, '0')}.pdf`;
    const createdAt = new Date(filesAt + 1 + i).toISOString();
    return {
      id,
      workspace_id: workspaceId,
      channel_id: channelId,
      object: 'file' as const,
      path: name,
      name,
      link_url: null,
      client_permissions: null,
      status: 'completed' as const,
      size: 10_000 + i,
      content_type: 'application/pdf',
      storage_key: `${workspaceId}/${id}`,
      creator_id: sender.id,
      modified_by_id: sender.id,
      modified_by_object: 'internalUser' as const,
      created_at: createdAt,
      updated_at: createdAt,
    };
  });
  await database.db.insertInto('files').values(files).execute();
}
// Fold the seed's WAL into the database before the server measures reads (100 group commits leave a long WAL).
if (database.dialect === 'sqlite') await sql`pragma wal_checkpoint(TRUNCATE)`.execute(database.db);
await database.close();
// A sample of 100 client ids is enough for the scenarios.
const seconds = (Date.now() - start) / 1000;
const sample = clientIds.filter((_, i) => i % Math.max(1, Math.ceil(count / 100)) === 0);
process.stdout.write(
  `${JSON.stringify({ clientIds: sample, companyIds, messageChannelIds, fileChannelId, senderId: sender.id, seconds })}\n`,
);
