// The CSV import's speed: `node --import tsx bench/import-clients.ts [--rows N]` (default 100,000).
// Writes an N-row client CSV in a temporary directory (a company column naming 2,000 companies, one row in
// ten without one, so with a placeholder; a multiSelect, a phone and a text custom field), makes a fresh
// SQLite database with one workspace and those fields, then runs the real command,
// `portal import clients --workspace W FILE.csv --json`, as a child process and times it (its start and
// migrations included). Prints what it measured and one JSON line: {rows, created, seconds, rowsPerSecond}.
// The target (issue 14): 100,000 rows in under 60 s on SQLite. `--postgres`: the same on PostgreSQL (issue 22: 5,000 rows/s).
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { onPostgres, postgresSchemaUrl } from './postgres-schema.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { openDatabase } from '../src/db/open.js';
import { systemCaller } from '../src/lib/caller.js';
import { createCustomField } from '../src/modules/resources/custom-fields/index.js';
import { createWorkspace } from '../src/modules/resources/workspaces/index.js';

const { values } = parseArgs({
  options: { rows: { type: 'string', default: '100000' }, keep: { type: 'boolean' }, postgres: { type: 'boolean' } },
});
const rows = Number(values.rows);
if (!Number.isInteger(rows) || rows < 1 || rows > 1_000_000) {
  process.stderr.write('usage: import-clients.ts [--rows 1..1000000] [--keep] [--postgres]\n');
  process.exit(2);
}

const dir = mkdtempSync(join(tmpdir(), 'portal-import-bench-'));
const file = join(dir, 'clients.csv');
// --postgres: a schema of its own (bench/postgres-schema.ts), dropped afterwards.
const schema = `import_bench_${process.pid}`;
const databaseUrl = values.postgres ? postgresSchemaUrl(schema) : `sqlite:${join(dir, 'portal.db')}`;

const TIERS = ['Gold', 'Silver', 'Bronze'];
async function writeCsv() {
  const out = createWriteStream(file);
  const write = async (text: string) => {
    if (!out.write(text)) await once(out, 'drain');
  };
  await write('email,givenName,familyName,company,tier,phone,notes\r\n');
  for (let i = 0; i < rows; i++) {
    const company = i % 10 === 9 ? '' : `Company ${i % 2000}`;
    const tier = i % 4 === 3 ? '' : `${TIERS[i % 3]}${i % 5 === 0 ? `; ${TIERS[(i + 1) % 3]}` : ''}`;
    const notes = i % 7 === 0 ? `"Met at ""Expo ${i % 12}"", Paris"` : `note ${i}`;
    await write(`client-${i}@example.com,Given${i},Family ${i % 977},${company},${tier},+1 555 ${String(i).padStart(7, '0')},${notes}\r\n`);
  }
  out.end();
  await once(out, 'finish');
}

async function setUp(): Promise<string> {
  const database = openDatabase(databaseUrl);
  await migrateToLatest(database);
  const { workspaceId } = await createWorkspace(database, { name: 'Import bench' }, Date.now());
  const caller = systemCaller(workspaceId, Date.now());
  await createCustomField(database, caller, { entityType: 'client', key: 'tier', name: 'Tier', type: 'multiSelect', options: TIERS });
  await createCustomField(database, caller, { entityType: 'client', key: 'phone', name: 'Phone', type: 'phoneNumber' });
  await createCustomField(database, caller, { entityType: 'client', key: 'notes', name: 'Notes', type: 'text' });
  await database.close();
  return workspaceId;
}

if (values.postgres) await onPostgres(`create schema ${schema}`);
try {
  await writeCsv();
  const workspaceId = await setUp();
  process.stderr.write(`${rows} rows, ${(statSync(file).size / 1e6).toFixed(1)} MB: importing…\n`);
  const start = performance.now();
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['bin/portal.js', 'import', 'clients', '--workspace', workspaceId, file, '--json'],
    { env: { ...process.env, DATABASE_URL: databaseUrl }, maxBuffer: 64 * 1024 * 1024 },
  );
  const seconds = (performance.now() - start) / 1000;
  const result = JSON.parse(stdout) as { created: number; skipped: number; errors: unknown[] };
  if (result.created !== rows) throw new Error(`expected ${rows} created, got ${stdout.slice(0, 500)}`);
  const rowsPerSecond = Math.round(rows / seconds);
  process.stderr.write(`${rows} rows imported in ${seconds.toFixed(1)} s: ${rowsPerSecond} rows/s\n`);
  process.stdout.write(`${JSON.stringify({ rows, created: result.created, seconds: Number(seconds.toFixed(2)), rowsPerSecond })}\n`);
} finally {
  if (values.postgres && !values.keep) await onPostgres(`drop schema ${schema} cascade`);
  if (values.keep) process.stderr.write(`kept ${dir}\n`);
  else rmSync(dir, { recursive: true, force: true });
}
