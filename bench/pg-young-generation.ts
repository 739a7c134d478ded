// `node --import tsx bench/pg-young-generation.ts [--concurrency 10,20,30,50] [--semi 4,16] [--seconds 5]`: what the
// number of reads in flight does to V8's young generation on PostgreSQL, with no HTTP and none of the server's code
// (issue 46, point 1; bench/README.md, 2026-11-30). A child process per (semi-space, concurrency) pair, pinned to CPU 0
// when taskset is there, runs `concurrency` loops that each read the page of 101 rows of a 10,000-row table through
// `pg` (a pool of 10, the server's default; a named statement, rows as arrays) and serialize it, for `seconds`; it runs
// under `--max-semi-space-size=<semi> --trace-gc-nvp`. Printed: the child's CPU µs per read, and over the last half of
// its scavenges the average pause and the KB promoted per scavenge (what outlived two scavenges). The table lives in a
// schema of its own (`bench_young_<pid>`), dropped at the end. BENCH_POSTGRES_URL as for `npm run bench -- --postgres` (bench/postgres-schema.ts).
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { BENCH_POSTGRES_URL, onPostgres } from './postgres-schema.js';

const { values } = parseArgs({
  options: {
    concurrency: { type: 'string', default: '10,20,30,50' },
    semi: { type: 'string', default: '4,16' },
    seconds: { type: 'string', default: '5' },
    child: { type: 'string' },
  },
});
const list = (text: string) => text.split(',').map(Number);

/** The page the server's list reads: 20 text columns, newest first by (created_at, id). */
const PAGE_SQL = (schema: string) => `select * from ${schema}.clients where workspace_id = $1 order by created_at desc, id desc limit 101`;

/** The child: `concurrency` loops reading pages until `seconds` have passed; prints its CPU µs per read. */
async function readLoop(schema: string, concurrency: number, seconds: number): Promise<void> {
  const pool = new pg.Pool({ connectionString: BENCH_POSTGRES_URL, max: 10 });
  const text = PAGE_SQL(schema);
  const end = Date.now() + seconds * 1000;
  let reads = 0;
  // One read per call: a loop body awaiting the next read would keep the last page alive meanwhile.
  const readOne = async () => {
    const { rows } = await pool.query<unknown[]>({ name: 'young_page', text, values: ['ws'], rowMode: 'array' });
    if (rows.length !== 101) throw new Error(`pg-young-generation: ${rows.length} rows`);
    JSON.stringify(rows);
    reads++;
  };
  const loop = async () => {
    while (Date.now() < end) await readOne();
  };
  const before = process.cpuUsage();
  await Promise.all(Array.from({ length: concurrency }, loop));
  const cpu = process.cpuUsage(before);
  await pool.end();
  process.stderr.write(`${JSON.stringify({ reads, cpuPerRead: (cpu.user + cpu.system) / reads })}\n`);
}

/** Average pause (ms) and promoted KB of the last half of the scavenges in a `--trace-gc-nvp` output. */
function scavenges(trace: string): { count: number; pauseMs: number; promotedKb: number } {
  const lines = trace.split('\n').filter((line) => line.includes(' gc=s '));
  const last = lines.slice(Math.floor(lines.length / 2));
  const average = (key: string) =>
    last.reduce((sum, line) => sum + Number(new RegExp(`\\b${key}=([0-9.]+)`).exec(line)?.[1] ?? 0), 0) / Math.max(1, last.length);
  return { count: lines.length, pauseMs: average('pause'), promotedKb: average('promoted') / 1024 };
}

async function main(): Promise<void> {
  const schema = `bench_young_${process.pid}`;
  try {
    await onPostgres(
      `create schema ${schema}`,
      `
      create table ${schema}.clients as select
        gen_random_uuid()::text as id, 'ws' as workspace_id,
        to_char(timestamp '2026-01-01' + i * interval '1 second', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as created_at,
        to_char(timestamp '2026-01-01' + i * interval '1 second', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as updated_at,
        'client-' || i || '@example.com' as email, 'client-' || i || '@example.com' as email_key,
        'Bench' as given_name, 'Client ' || i as family_name, '' as avatar_image_url,
        gen_random_uuid()::text as company_id, gen_random_uuid()::text as company_ids, '{}' as custom_fields,
        'notInvited' as status, 'internalUser' as creation_method, null::text as first_login_date,
        null::text as last_login_date, null::text as invited_by, null::text as invite_token_hash,
        null::text as invite_expires_at, 'c' || i as activity_key
      from generate_series(1, 10000) i`,
      `create index on ${schema}.clients (workspace_id, created_at, id)`,
      `analyze ${schema}.clients`,
    );
    const pin = spawnSync('taskset', ['-c', '0', 'true']).status === 0 ? ['taskset', '-c', '0'] : [];
    process.stdout.write('semi-space MB | reads in flight | CPU µs/read | scavenges | pause ms | promoted KB/scavenge\n');
    for (const semi of list(values.semi)) {
      for (const concurrency of list(values.concurrency)) {
        const node = [process.execPath, `--max-semi-space-size=${semi}`, '--trace-gc-nvp', '--import', 'tsx'];
        const [command, ...args] = [
          ...pin,
          ...node,
          fileURLToPath(import.meta.url),
          '--child',
          `${schema},${concurrency},${values.seconds}`,
        ];
        const run = spawnSync(command, args, {
          encoding: 'utf8',
          maxBuffer: 256 * 1024 * 1024,
          timeout: (Number(values.seconds) + 60) * 1000,
        });
        const result = /\{"reads".*\}/.exec(run.stderr);
        if (run.status !== 0 || !result) throw new Error(`pg-young-generation: the child failed\n${run.stderr}`);
        const { cpuPerRead } = JSON.parse(result[0]) as { cpuPerRead: number };
        const gc = scavenges(run.stdout);
        process.stdout.write(
          `${String(semi).padStart(13)} | ${String(concurrency).padStart(15)} | ${cpuPerRead.toFixed(0).padStart(11)} | ${String(gc.count).padStart(9)} | ${gc.pauseMs.toFixed(1).padStart(8)} | ${gc.promotedKb.toFixed(0).padStart(20)}\n`,
        );
      }
    }
  } finally {
    await onPostgres(`drop schema if exists ${schema} cascade`);
  }
}

if (values.child) {
  const [schema, concurrency, seconds] = values.child.split(',');
  await readLoop(schema, Number(concurrency), Number(seconds));
} else {
  await main();
}
