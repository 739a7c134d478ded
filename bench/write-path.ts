// `node --import tsx bench/write-path.ts [--groups N] [--only a,b]`: what each part of a client creation's commit costs
// SQLite, statement by statement and index by index (issue 22; bench/README.md, "The write path").
// Captures the batches the real service writes for N × GROUP clients (createClient with a workspace key's
// caller, as POST /v1/clients has), then replays them on a fresh copy of the database in group commits of
// GROUP batches, as the server's group commit runs them, leaving out one part at a time; prints the CPU
// per client of each variant. Runs on one core, in one process, with nothing else; no server.
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import SqliteDatabase from 'better-sqlite3';
import type { Statement } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { openDatabase } from '../src/db/open.js';
import { callerOf } from '../src/lib/caller.js';
import { createClient, createCompany } from '../src/modules/resources/directory/index.js';
import { createWorkspace } from '../src/modules/resources/workspaces/index.js';

/** Batches per group commit: what the server's group commit took per commit under the bench's load (36 measured). */
const GROUP = 36;

const { values } = parseArgs({ options: { groups: { type: 'string' }, only: { type: 'string' } } });
const groups = Number(values.groups ?? 100);
const dir = mkdtempSync(join(tmpdir(), 'portal-write-path-'));
const template = join(dir, 'template.db');

// 1. A workspace with 100 companies and 10,000 clients (the bench's writes workspace has no clients; the
// reads workspace's rows fill the shared indexes), then the batches of N × GROUP creations, captured.
const database = openDatabase(`sqlite:${template}`);
await migrateToLatest(database);
const now = Date.now();
const { workspaceId, apiKeyId } = await createWorkspace(database, { name: 'Write path' }, now);
const principal = { kind: 'workspaceKey' as const, workspaceId, apiKeyId, dailyQuota: 1e9, clockOffsetMs: 0 };
const callerAt = (at: number) => callerOf(principal, at, { ip: '127.0.0.1', userAgent: 'autocannon' });
const companyIds: string[] = [];
for (let i = 0; i < 100; i++) companyIds.push((await createCompany(database, callerAt(now), { name: `Company ${i}` })).id);
const input = (i: number) => ({
  email: `client-${i}@example.com`,
  givenName: 'Bench',
  familyName: `Client ${i}`,
  companyId: companyIds[i % companyIds.length],
});
for (let first = 0; first < 10_000; first += 100) {
  await Promise.all(
    Array.from({ length: 100 }, (_, k) => createClient(database, callerAt(now + first + k), input(first + k), { portalUrl: '' })),
  );
}
const captured: Statement[][] = [];
const capturing = {
  ...database,
  writeBatch: async (statements: readonly Statement[]) => void captured.push([...statements]),
};
for (let i = 0; i < groups * GROUP; i++) {
  await createClient(capturing, callerAt(now + 20_000 + i), input(20_000 + i), { portalUrl: '' });
}
await database.close();

/**
 * The same batches with time-ordered ids (UUIDv7-like: a counter first) for the rows they create, instead
 * of random UUIDv4s: each index led by such an id takes its inserts at its end instead of at random pages.
 */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const existing = new Set([workspaceId, apiKeyId, ...companyIds]);
const ordered = new Map<string, string>();
const orderedId = (id: string) => {
  let next = ordered.get(id);
  if (next === undefined) {
    next = `${(0x10000000 + ordered.size).toString(16)}-0000-7000-8000-${id.slice(-12)}`;
    ordered.set(id, next);
  }
  return next;
};
const capturedOrdered = captured.map((batch) =>
  batch.map((statement) => ({
    ...statement,
    parameters: statement.parameters.map((value) =>
      typeof value === 'string' && UUID.test(value) && !existing.has(value) ? orderedId(value) : value,
    ),
  })),
);

/** The table a captured insert writes. */
const tableOf = (statement: Statement) => /^insert into "([a-z_]+)"/.exec(statement.sql)?.[1] ?? '?';

interface Variant {
  readonly name: string;
  /** Which statements of a batch to run. */
  readonly keep?: (statement: Statement) => boolean;
  /** Indexes dropped before the run. */
  readonly drop?: readonly string[];
  /** Each batch in its own savepoint, as the server does for groups of more than one. */
  readonly savepoints?: boolean;
  /** The batches with time-ordered ids. */
  readonly orderedIds?: boolean;
  /** Tables rebuilt as WITHOUT ROWID (their primary key is the table's B-tree: one B-tree fewer a row). */
  readonly withoutRowid?: readonly string[];
}

/** Rebuilds a table (of a table-level primary key) as WITHOUT ROWID, with its rows and indexes. */
function rebuildWithoutRowid(raw: SqliteDatabase.Database, table: string) {
  const objects = raw
    .prepare<[string], { type: string; sql: string }>('select type, sql from sqlite_master where tbl_name = ? and sql is not null')
    .all(table);
  const create = objects.find((o) => o.type === 'table')?.sql;
  if (!create) throw new Error(`write-path: no table ${table}`);
  raw.pragma('foreign_keys = OFF');
  raw.exec(`alter table "${table}" rename to "${table}_old"`);
  raw.exec(`${create} without rowid`);
  raw.exec(`insert into "${table}" select * from "${table}_old"`);
  raw.exec(`drop table "${table}_old"`);
  for (const index of objects.filter((o) => o.type === 'index')) raw.exec(index.sql);
  raw.pragma('foreign_keys = ON');
}

const AUDIT_INDEXES = [
  'audit_log_page',
  'audit_log_event_page',
  'audit_log_actor_page',
  'audit_log_company_page',
  'audit_log_scope_page',
  'audit_log_webhook_pending',
  'audit_log_personal_data',
];
const variants: Variant[] = [
  { name: 'the whole batch, each in a savepoint (as the server runs a group again after a batch failed)', savepoints: true },
  { name: 'the whole batch, no savepoints (as the server)' },
  { name: 'without the audit_log row', keep: (s) => tableOf(s) !== 'audit_log' },
  { name: 'without the client_companies row', keep: (s) => tableOf(s) !== 'client_companies' },
  { name: 'the clients row only', keep: (s) => tableOf(s) === 'clients' },
  { name: "without audit_log's 7 secondary indexes", drop: AUDIT_INDEXES },
  ...AUDIT_INDEXES.map((index) => ({ name: `without ${index}`, drop: [index] })),
  { name: 'the whole batch, time-ordered ids', orderedIds: true },
  { name: 'the whole batch, time-ordered ids, without audit_log_scope_page', orderedIds: true, drop: ['audit_log_scope_page'] },
  { name: 'without the client_search_terms rows', keep: (s) => tableOf(s) !== 'client_search_terms' },
  { name: 'client_companies and client_search_terms WITHOUT ROWID', withoutRowid: ['client_companies', 'client_search_terms'] },
  { name: 'nothing (BEGIN and COMMIT of empty groups)', keep: () => false },
];

/** CPU µs per client of one variant, on a fresh copy of the database. */
function measure(variant: Variant): number {
  const file = join(dir, 'run.db');
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
  copyFileSync(template, file);
  const raw = new SqliteDatabase(file);
  raw.pragma('journal_mode = WAL');
  raw.pragma('synchronous = NORMAL');
  raw.pragma('foreign_keys = ON');
  for (const index of variant.drop ?? []) raw.exec(`drop index ${index}`);
  for (const table of variant.withoutRowid ?? []) rebuildWithoutRowid(raw, table);
  const cache = new Map<string, SqliteDatabase.Statement>();
  const prepare = (text: string) => cache.get(text) ?? (cache.set(text, raw.prepare(text)), cache.get(text) as SqliteDatabase.Statement);
  const [begin, commit, savepoint, release] = ['BEGIN IMMEDIATE', 'COMMIT', 'SAVEPOINT batch', 'RELEASE batch'].map((t) => raw.prepare(t));
  const cpuBefore = process.cpuUsage();
  for (let g = 0; g < groups; g++) {
    begin.run();
    for (const batch of (variant.orderedIds ? capturedOrdered : captured).slice(g * GROUP, (g + 1) * GROUP)) {
      if (variant.savepoints) savepoint.run();
      for (const statement of batch) if (!variant.keep || variant.keep(statement)) prepare(statement.sql).run(...statement.parameters);
      if (variant.savepoints) release.run();
    }
    commit.run();
  }
  const cpu = process.cpuUsage(cpuBefore);
  raw.close();
  return (cpu.user + cpu.system) / (groups * GROUP);
}

const statementsPerBatch = captured[0].map(tableOf).join(', ');
process.stdout.write(`${groups * GROUP} client creations (${statementsPerBatch}), in group commits of ${GROUP}:\n`);
// --only a,b: the variants whose name contains a or b.
const wanted = values.only?.split(',');
for (const variant of variants.filter((v) => !wanted || wanted.some((part) => v.name.includes(part)))) {
  // The median of three runs, each on a fresh copy.
  const runs = [measure(variant), measure(variant), measure(variant)].sort((a, b) => a - b);
  process.stdout.write(`${runs[1].toFixed(1).padStart(7)} µs  ${variant.name}\n`);
}
rmSync(dir, { recursive: true, force: true });
