// How long a message takes to reach an open stream (issue 44, point 2; bench/README.md, "Live messages"):
// `node --import tsx bench/stream-latency.ts [--messages N] [--only sqlite|notify|redis]`.
// Starts the real server (compiled, as `npm start` runs it) and measures, message by message, from the moment a POST
// /v1/messages is sent until its `message.created` event arrives on another connection's GET /v1/messages/stream,
// one message at a time (each waits for the previous one's event: latency, not throughput), after a warm-up:
// - `sqlite`: one process on SQLite (the in-process bus), the stream on the same server as the POSTs;
// - `notify`: two processes on one PostgreSQL schema, no Redis (LISTEN/NOTIFY), POSTs to one, the stream on the other;
// - `redis`: the same two processes with REDIS_URL (Redis pub/sub; BENCH_REDIS_URL, default redis://127.0.0.1:6379).
// A variant whose database or Redis does not answer is skipped, and said so. Unpinned: every process shares the CPUs.
// Prints a table (p50, p99, max; and the same counted from the POST's answer) and one JSON line with every figure.
import { execFile } from 'node:child_process';
import { request } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { type Child, freePort, startChild, stopChild, waitForHttp, withTimeout } from './children.js';
import { onPostgres, postgresSchemaUrl } from './postgres-schema.js';
import { ROOT, SERVE_ARGS } from './server-setup.js';

const WARM_UP = 20;
/** Every wait is bounded: an event that never comes stops the bench. */
const EVENT_TIMEOUT_MS = 10_000;
const START_TIMEOUT_MS = 30_000;
const VARIANTS = ['sqlite', 'notify', 'redis'] as const;
type Variant = (typeof VARIANTS)[number];

const { values } = parseArgs({ options: { messages: { type: 'string', default: '300' }, only: { type: 'string' } } });
const messages = Number(values.messages);
const only = values.only as Variant | undefined;
if (!Number.isInteger(messages) || messages < 10 || messages > 100_000 || (only !== undefined && !VARIANTS.includes(only))) {
  process.stderr.write('usage: stream-latency.ts [--messages 10..100000] [--only sqlite|notify|redis]\n');
  process.exit(2);
}
const redisUrl = process.env.BENCH_REDIS_URL || 'redis://127.0.0.1:6379';
const log = (line: string) => process.stderr.write(`${line}\n`);

function run(argv: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(process.execPath, argv, { cwd: ROOT, env, timeout: 60_000 }, (error, stdout, stderr) =>
      error ? reject(new Error(`${argv.join(' ')}: ${error.message}\n${stderr}`)) : resolve(stdout),
    ),
  );
}

async function json(base: string, apiKey: string, method: string, path: string, body?: object) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { 'x-api-key': apiKey, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
    signal: AbortSignal.timeout(EVENT_TIMEOUT_MS),
  });
  const answer = await response.json();
  if (response.status !== 200) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(answer)}`);
  return answer as Record<string, string>;
}

/** A stream's `message.created` events as they arrive, each with its arrival time (performance.now()). */
function follow(base: string, apiKey: string) {
  const arrivals = new Map<string, number>();
  const waiting = new Map<string, (at: number) => void>();
  let buffer = '';
  const opened = new Promise<() => void>((resolve, reject) => {
    const req = request(`${base}/v1/messages/stream`, { headers: { 'x-api-key': apiKey } }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`GET /v1/messages/stream: ${res.statusCode}`));
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        const at = performance.now();
        buffer += chunk;
        let end = buffer.indexOf('\n\n');
        while (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          end = buffer.indexOf('\n\n');
          if (!block.includes('event: message.created')) continue;
          const id = JSON.parse(/^data: (.*)$/m.exec(block)?.[1] ?? '{}').id as string;
          arrivals.set(id, at);
          waiting.get(id)?.(at);
        }
      });
      resolve(() => req.destroy());
    });
    req.on('error', reject);
    req.end();
  });
  const arrival = (id: string) =>
    arrivals.has(id)
      ? Promise.resolve(arrivals.get(id) as number)
      : withTimeout(new Promise<number>((resolve) => waiting.set(id, resolve)), EVENT_TIMEOUT_MS, `the event of message ${id}`);
  return { opened, arrival };
}

interface Figures {
  p50: number;
  p99: number;
  max: number;
}
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
const figures = (samples: number[]): Figures => {
  const sorted = [...samples].sort((a, b) => a - b);
  const round = (ms: number) => Math.round(ms * 100) / 100;
  return { p50: round(percentile(sorted, 50)), p99: round(percentile(sorted, 99)), max: round(sorted[sorted.length - 1]) };
};

/** One variant: its servers started on a fresh database, a workspace with one channel, then the messages, one at a time. */
async function measure(variant: Variant): Promise<{ fromPost: Figures; fromAnswer: Figures; processes: number } | string> {
  const dir = await mkdtemp(join(tmpdir(), 'portal-stream-bench-'));
  const schema = `stream_bench_${process.pid}`;
  const usesPostgres = variant !== 'sqlite';
  const databaseUrl = usesPostgres ? postgresSchemaUrl(schema) : `sqlite:${join(dir, 'bench.db')}`;
  const children: Child[] = [];
  try {
    if (variant === 'redis') {
      const probe = new Redis(redisUrl, { lazyConnect: true, connectTimeout: 2000, maxRetriesPerRequest: 0, retryStrategy: () => null });
      probe.on('error', () => {});
      const answered = await probe.connect().then(
        () => true,
        () => false,
      );
      probe.disconnect();
      if (!answered) return `skipped: Redis at ${redisUrl} does not answer (BENCH_REDIS_URL)`;
    }
    if (usesPostgres) {
      const made = await onPostgres(`create schema ${schema}`).then(
        () => true,
        (error: Error) => error.message,
      );
      if (made !== true) return `skipped: PostgreSQL does not answer (BENCH_POSTGRES_URL): ${made}`;
    }
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATABASE_URL: databaseUrl,
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      LIMITS_ENABLED: 'false',
      FILES_DIR: join(dir, 'files'),
      ...(variant === 'redis' ? { REDIS_URL: redisUrl, REDIS_KEY_PREFIX: `bench-${Date.now()}:` } : {}),
    };
    delete env.PORTAL_ADMIN_TOKEN;
    if (variant !== 'redis') delete env.REDIS_URL;
    // The workspace before any server starts (the command migrates the new database).
    const { apiKey } = JSON.parse(await run(['bin/portal.js', 'workspaces', 'create', '--name', 'Stream bench', '--json'], env));
    const processes = variant === 'sqlite' ? 1 : 2;
    const bases: string[] = [];
    for (let i = 0; i < processes; i++) {
      const port = await freePort();
      const child = startChild(`server ${i + 1}`, SERVE_ARGS, { cwd: ROOT, env: { ...env, PORT: String(port) } });
      children.push(child);
      bases.push(`http://127.0.0.1:${port}`);
      await waitForHttp(child, `${bases[i]}/readyz`, (status) => status === 200, START_TIMEOUT_MS);
    }
    const [posts, streams] = [bases[0], bases[processes - 1]];
    const company = await json(posts, apiKey, 'POST', '/v1/companies', { name: 'Bench Co' });
    const client = await json(posts, apiKey, 'POST', '/v1/clients', {
      email: 'bench@stream.test',
      givenName: 'Bench',
      familyName: 'Client',
      companyId: company.id,
    });
    const channel = await json(posts, apiKey, 'POST', '/v1/message-channels', { membershipType: 'individual', clientId: client.id });
    const stream = follow(streams, apiKey);
    const close = await stream.opened;
    const fromPost: number[] = [];
    const fromAnswer: number[] = [];
    try {
      for (let i = 0; i < WARM_UP + messages; i++) {
        const sent = performance.now();
        const message = await json(posts, apiKey, 'POST', '/v1/messages', {
          channelId: channel.id,
          text: `Message ${i}`,
          senderId: client.id,
        });
        const answered = performance.now();
        const arrived = await stream.arrival(message.id);
        if (i < WARM_UP) continue;
        fromPost.push(arrived - sent);
        fromAnswer.push(arrived - answered);
      }
    } finally {
      close();
    }
    return { fromPost: figures(fromPost), fromAnswer: figures(fromAnswer), processes };
  } finally {
    await Promise.all(children.map(stopChild));
    if (usesPostgres) await onPostgres(`drop schema if exists ${schema} cascade`).catch(() => {});
    await rm(dir, { recursive: true, force: true });
  }
}

const NAMES: Record<Variant, string> = {
  sqlite: 'one process, SQLite (in-process bus)',
  notify: 'two processes, PostgreSQL (LISTEN/NOTIFY)',
  redis: 'two processes, PostgreSQL + Redis (pub/sub)',
};

log('building dist/ (the server runs compiled, as `npm start` runs it)…');
await run(['scripts/build.mjs'], process.env);
const results: Record<string, unknown> = {};
for (const variant of only ? [only] : VARIANTS) {
  log(`${NAMES[variant]}: ${messages} messages after ${WARM_UP} of warm-up…`);
  const result = await measure(variant);
  results[variant] = result;
  if (typeof result === 'string') {
    log(`  ${result}`);
    continue;
  }
  const { fromPost: p, fromAnswer: a } = result;
  log(`  POST sent → event: p50 ${p.p50} ms, p99 ${p.p99} ms, max ${p.max} ms`);
  log(`  POST answered → event: p50 ${a.p50} ms, p99 ${a.p99} ms, max ${a.max} ms (negative: the event came first)`);
}
process.stdout.write(`${JSON.stringify({ messages, warmUp: WARM_UP, results })}\n`);
