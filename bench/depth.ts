// `npm run bench:depth [-- --messages N] [-- --files N] [-- --postgres]`: what depth costs the lists of messages and
// files (issue 46, point 4), measured from outside over real sockets. One workspace holds a message channel of N
// messages (1,000,000) and one of 10,000, a file channel of N files (100,000) and one of 10,000 (bench/seed-depth.ts);
// for each channel the server is sent its first page of 100 and the page of 100 at 90 % of it (a real nextToken,
// reached by paging with the list's largest limit). The server runs pinned to one CPU, the load on the other
// (autocannon, 50 connections, 2 s warm-up + 5 s measured); the requests take turns, BENCH_ROUNDS times (3).
// The goal: each page of the deep channel within 10 % of the same page of the 10,000-item one, by CPU per request.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { type Child, freePort, planPinning, startChild, stopChild, waitForHttp } from './children.js';
import { type Measured, measure } from './load.js';
import { onPostgres, postgresSchemaUrl } from './postgres-schema.js';
import { LOG_LEVEL, ROOMY_LIMITS, ROOT, SERVE_ARGS, buildServer, createWorkspace, median, runNode } from './server-setup.js';

const LOAD = { connections: 50, seconds: 5, warmupSeconds: 2 };
const PAGE = 100;
/** The list's largest limit: the hop when paging to depth. */
const HOP = 1000;
const DEPTH = 0.9;
const START_TIMEOUT_MS = 30_000;
/** Seeding, generously: a million rows take about a minute on SQLite here. */
const SEED_TIMEOUT_MS = 30 * 60_000;

type Family = 'messages' | 'files';
type Size = 'shallow' | 'deep';
type Where = 'first' | 'deep';

interface Seeded {
  messageChannels: Record<Size, string>;
  fileChannels: Record<Size, string>;
  seconds: number;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: { messages: { type: 'string' }, files: { type: 'string' }, postgres: { type: 'boolean' } },
  });
  const counts: Record<Family, number> = { messages: Number(values.messages ?? 1_000_000), files: Number(values.files ?? 100_000) };
  const rounds = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
  const pinning = planPinning();
  await buildServer();
  const work = mkdtempSync(join(tmpdir(), 'portal-depth-bench-'));
  const schema = `bench_depth_${process.pid}`;
  let server: Child | undefined;
  try {
    if (values.postgres) await onPostgres(`create schema ${schema}`);
    const env = {
      ...process.env,
      DATABASE_URL: values.postgres ? postgresSchemaUrl(schema) : `sqlite:${join(work, 'bench.db')}`,
      FILES_DIR: join(work, 'files'),
      HOST: '127.0.0.1',
      LOG_LEVEL,
      ...ROOMY_LIMITS,
    };
    const { workspaceId, apiKey } = await createWorkspace('Depth bench', env);
    const seedArgs = ['--import', 'tsx', 'bench/seed-depth.ts', workspaceId, String(counts.messages), String(counts.files)];
    const seeded = (await runNode(seedArgs, env, SEED_TIMEOUT_MS)) as Seeded;
    process.stderr.write(
      `depth bench: seeded ${counts.messages} + 10,000 messages, ${counts.files} + 10,000 files in ${seeded.seconds} s\n`,
    );
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    server = startChild('server', SERVE_ARGS, { cwd: ROOT, env: { ...env, PORT: String(port) }, cpu: pinning.serverCpu });
    await waitForHttp(server, `${base}/healthz`, (s) => s === 200, START_TIMEOUT_MS);

    const headers = { 'x-api-key': apiKey };
    const listPath = (family: Family, size: Size, limit: number, token?: string) => {
      const channelId = (family === 'messages' ? seeded.messageChannels : seeded.fileChannels)[size];
      return `/v1/${family}?channelId=${channelId}&limit=${limit}${token ? `&nextToken=${encodeURIComponent(token)}` : ''}`;
    };
    /** A real nextToken DEPTH into the channel, paged to with the largest limit. */
    const deepToken = async (family: Family, size: Size) => {
      const depth = Math.floor((size === 'deep' ? counts[family] : 10_000) * DEPTH);
      let token: string | undefined;
      for (let skipped = 0; skipped < depth; ) {
        const res = await fetch(`${base}${listPath(family, size, Math.min(HOP, depth - skipped), token)}`, { headers });
        const page = (await res.json()) as { data?: unknown[]; nextToken?: string };
        if (res.status !== 200 || !page.data || !page.nextToken)
          throw new Error(`paging ${family} to depth: ${res.status} after ${skipped}`);
        skipped += page.data.length;
        token = page.nextToken;
      }
      return token;
    };
    const requests: { family: Family; size: Size; where: Where; path: string }[] = [];
    for (const family of ['messages', 'files'] as const)
      for (const size of ['shallow', 'deep'] as const) {
        requests.push({ family, size, where: 'first', path: listPath(family, size, PAGE) });
        requests.push({ family, size, where: 'deep', path: listPath(family, size, PAGE, await deepToken(family, size)) });
      }

    const turns = new Map<string, Measured[]>();
    for (let round = 0; round < rounds; round++) {
      for (const r of round % 2 === 0 ? requests : [...requests].reverse()) {
        const measured = await measure(base, server.process.pid, { method: 'GET', path: r.path, headers }, 200, LOAD, {
          cwd: ROOT,
          loadCpu: pinning.loadCpu,
          indexStart: 0,
          track: () => {},
        });
        if (measured.unexpected > 0 || measured.errors > 0)
          throw new Error(`${r.family} ${r.size} ${r.where}: ${measured.unexpected} unexpected answers, ${measured.errors} errors`);
        const key = `${r.family} ${r.size} ${r.where}`;
        turns.set(key, [...(turns.get(key) ?? []), measured]);
      }
      process.stderr.write(`depth bench: round ${round + 1}/${rounds} done\n`);
    }

    const cpu = (key: string) => median((turns.get(key) ?? []).map((m) => m.cpuUsPerRequest ?? Number.NaN));
    const p99 = (key: string) => median((turns.get(key) ?? []).map((m) => m.latencyP99Ms));
    const each = (key: string) => (turns.get(key) ?? []).map((m) => (m.cpuUsPerRequest ?? Number.NaN).toFixed(0)).join(', ');
    const rows: string[] = [];
    for (const family of ['messages', 'files'] as const)
      for (const where of ['first', 'deep'] as const) {
        const [shallow, deep] = [`${family} shallow ${where}`, `${family} deep ${where}`];
        rows.push(
          `| ${family} | ${where === 'first' ? 'first page' : 'page at 90 %'} | ${cpu(shallow).toFixed(0)} (${each(shallow)}) | ` +
            `${cpu(deep).toFixed(0)} (${each(deep)}) | ${(cpu(deep) / cpu(shallow)).toFixed(2)} | ${p99(shallow).toFixed(0)} / ${p99(deep).toFixed(0)} |`,
        );
      }
    process.stdout.write(
      `${pinning.note}. ${values.postgres ? 'PostgreSQL' : 'SQLite'}; ${counts.messages.toLocaleString('en')} messages and ` +
        `${counts.files.toLocaleString('en')} files against 10,000 of each; pages of ${PAGE}; medians of ${rounds} round(s) ` +
        '(each round in brackets); CPU: the server’s user + system time per request (/proc).\n\n' +
        '| list | page | 10,000: CPU µs | deep channel: CPU µs | deep ÷ 10,000 (goal ≤ 1.10) | p99 ms, 10,000 / deep |\n' +
        '|---|---|---|---|---|---|\n' +
        `${rows.join('\n')}\n`,
    );
  } finally {
    if (server) await stopChild(server);
    if (values.postgres) await onPostgres(`drop schema if exists ${schema} cascade`);
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
