// `npm run bench [-- --clients N] [-- --limiter] [-- --postgres]`: the real server against a bare Fastify
// route and a naive Fastify + better-sqlite3 server, in interleaved rounds, servers and load generator
// pinned to different CPUs (see bench/README.md). --postgres: the real server on PostgreSQL, the naive one on a copy.
import { copyFile, mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { type Child, freePort, planPinning, readMemory, resetPeakRss, startChild, stopChild, waitForHttp } from './children.js';
import { CONTRACT_HEADER_VARIANTS, formatContractHeaders, formatLimiter, limiterVariants, measureLimiter } from './limiter.js';
import { type LoadSettings, type Measured, type RequestSpec, bodyMaker, measure } from './load.js';
import { copyNaiveTables, onPostgres, postgresSchemaUrl } from './postgres-schema.js';
import { LOG_LEVEL, ROOMY_LIMITS, ROOT, SERVE_ARGS, buildServer, createWorkspace, runNode } from './server-setup.js';
import {
  type BenchResults,
  type RoundSample,
  type ScenarioResult,
  TARGET_ORDER,
  type TargetKind,
  type TargetSummary,
  evaluateTargets,
  formatReport,
  summarize,
} from './report.js';
import { type BenchContext, type RunningTarget, SCENARIOS, type Sample, type Scenario } from './scenarios.js';

/** Where a run's JSON goes: one file per database, so a PostgreSQL run never replaces the SQLite one. */
const RESULTS_FILE = {
  sqlite: join(ROOT, 'bench', 'results', 'latest.json'),
  postgres: join(ROOT, 'bench', 'results', 'latest-postgres.json'),
};
const START_TIMEOUT_MS = 30_000;
/** How long the started server is left alone before its resting RSS is read. */
const IDLE_SETTLE_MS = 2_000;
const REQUEST_TIMEOUT_MS = 60_000; // a setup request: a page of 1000 deep in 100,000 clients may be slow
const DEFAULT_CLIENTS = 10_000;
const MIN_CLIENTS = 1_000; // the page at 90% depth should still be a page of 100
const MAX_CLIENTS = 1_000_000;
/** Each measured run numbers its POST bodies from its own block, so emails never repeat in a database. */
const INDEX_BLOCK = 10_000_000;

/** BENCH_PROFILE=<dir>: the real server and the naive one also write a V8 CPU profile there when they stop (bench/profile.ts reads one). */
const PROFILE_ARGS = process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];

const USAGE = `usage: npm run bench [-- --clients N] [-- --limiter] [-- --postgres]
  (no flag)     every scenario, on ${DEFAULT_CLIENTS} seeded clients
  --clients N   seed N clients (${MIN_CLIENTS}..${MAX_CLIENTS}) and run the directory reads only:
                the point read, the first page of 100 and the page of 100 at 90% depth
  --limiter     also measure the limiter's cost (limits off, in-process; Redis with BENCH_REDIS_URL)
  --postgres    the server on PostgreSQL (a schema of its own in BENCH_POSTGRES_URL, dropped after), the naive
                server on a copy of its seeded clients (another schema); results in latest-postgres.json
  -h, --help    this text
env: BENCH_SECONDS (10), BENCH_WARMUP_SECONDS (2), BENCH_CONNECTIONS (50), BENCH_ROUNDS (3), BENCH_ONLY (a scenario key part, or several, comma-separated),
     BENCH_PROFILE (a directory: the server's CPU profile),
     BENCH_LIMITER_ROUNDS (3), BENCH_REDIS_URL (unset: no Redis variant),
     BENCH_POSTGRES_URL (postgres://postgres@127.0.0.1:5432/test)`;

class UsageError extends Error {}

interface Options {
  readonly clients: number;
  /** default: every scenario; directory: --clients N, the directory reads only. */
  readonly mode: 'default' | 'directory';
  readonly limiter: boolean;
  readonly database: 'sqlite' | 'postgres';
}

const FLAGS = {
  clients: { type: 'string' },
  limiter: { type: 'boolean' },
  postgres: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

function parseFlags(argv: string[]) {
  try {
    return parseArgs({ args: argv, options: FLAGS, strict: true, allowPositionals: false }).values;
  } catch (error) {
    throw new UsageError((error as Error).message); // an unknown flag, a missing value, a stray argument
  }
}

function parseOptions(argv: string[]): Options | 'help' {
  const values = parseFlags(argv);
  if (values.help) return 'help';
  let clients = DEFAULT_CLIENTS;
  if (values.clients !== undefined) {
    clients = /^\d+$/.test(values.clients) ? Number(values.clients) : Number.NaN;
    if (!Number.isSafeInteger(clients) || clients < MIN_CLIENTS || clients > MAX_CLIENTS) {
      throw new UsageError(`--clients must be an integer from ${MIN_CLIENTS} to ${MAX_CLIENTS} (got "${values.clients}")`);
    }
  }
  return {
    clients,
    mode: values.clients === undefined ? 'default' : 'directory',
    limiter: values.limiter ?? false,
    database: values.postgres ? 'postgres' : 'sqlite',
  };
}

function envInt(name: string, fallback: number, min: number): number {
  const raw = process.env[name];
  const value = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isInteger(value) || value < min) throw new UsageError(`${name} must be an integer >= ${min} (got "${raw}")`);
  return value;
}

// Everything to undo, whatever way the bench ends.
const children = new Set<Child>();
const track = (child: Child, running: boolean) => void (running ? children.add(child) : children.delete(child));
let tempDir: string | undefined;
/** The schemas this run made (the server's, the naive server's), dropped at its end. */
const postgresSchemas: string[] = [];

async function cleanup(): Promise<void> {
  await Promise.all([...children].map(stopChild));
  children.clear();
  if (tempDir) await rm(tempDir, { recursive: true, force: true });
  tempDir = undefined;
  for (const schema of postgresSchemas.splice(0)) await onPostgres(`drop schema if exists ${schema} cascade`);
}

const startedAtMs = Date.now();
const log = (message: string) => process.stderr.write(`bench [${((Date.now() - startedAtMs) / 1000).toFixed(0)} s]: ${message}\n`);

/** One request (its body, if any, numbered `index`); the whole answer. */
async function send(baseUrl: string, request: RequestSpec, index: number): Promise<Sample> {
  const body = request.content ?? (request.body ? bodyMaker(request.body, index)() : undefined);
  const headers = request.body === undefined ? request.headers : { 'content-type': 'application/json', ...request.headers };
  const response = await fetch(`${baseUrl}${request.path}`, {
    method: request.method,
    headers,
    body,
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  const buffer = Buffer.from(await response.arrayBuffer());
  const contentType = response.headers.get('content-type') ?? '';
  return { status: response.status, text: buffer.toString('utf8'), bytes: buffer.length, json: contentType.startsWith('application/json') };
}

interface Seeded {
  readonly clientIds: string[];
  readonly companyIds: string[];
  readonly messageChannelIds: string[];
  /** The read workspace's file channel (200 files); null when no client is seeded. */
  readonly fileChannelId: string | null;
  readonly senderId: string;
}

/** bench/seed-clients.ts on the database, before any server runs; bounded by a generous 2 s per 1000 clients. */
async function seed(workspaceId: string, count: number, env: NodeJS.ProcessEnv): Promise<Seeded> {
  const timeoutMs = Math.max(60_000, count * 2);
  const output = (await runNode(['--import', 'tsx', 'bench/seed-clients.ts', workspaceId, String(count)], env, timeoutMs)) as Seeded;
  if (!Array.isArray(output?.clientIds) || !Array.isArray(output.companyIds) || !Array.isArray(output.messageChannelIds))
    throw new Error('bench: unexpected seed output');
  return output;
}

/** Rotated by `by`: round r starts with another target, so no target always runs first or last. */
const rotate = <T>(list: readonly T[], by: number) => list.map((_, i) => list[(i + by) % list.length]);

/** The answer of a list or object without its nextToken (each server signs its own). */
const withoutToken = (text: string) => {
  const value = JSON.parse(text) as Record<string, unknown>;
  delete value.nextToken;
  return JSON.stringify(value);
};

interface Prepared {
  readonly scenario: Scenario;
  readonly name: string;
  readonly kinds: readonly TargetKind[];
  /** The request of each running target (the bare route is sent the server's); naive only where it applies. */
  readonly requests: { readonly server: RequestSpec; readonly naive?: RequestSpec };
  /** One answer of each, taken before the rounds: the bare route serves the server's body. */
  readonly samples: { readonly server: Sample; readonly naive?: Sample };
  readonly rounds: Record<TargetKind, RoundSample[]>;
}

async function main(options: Options): Promise<number> {
  const settings: LoadSettings = {
    connections: envInt('BENCH_CONNECTIONS', 50, 1),
    seconds: envInt('BENCH_SECONDS', 10, 1),
    warmupSeconds: envInt('BENCH_WARMUP_SECONDS', 2, 0),
  };
  const rounds = envInt('BENCH_ROUNDS', 3, 1);
  const limiterRounds = envInt('BENCH_LIMITER_ROUNDS', 3, 1);
  const pinning = planPinning();
  const startedAt = new Date().toISOString();
  log(pinning.note);

  // The server runs compiled, as `npm start` runs it (bin/portal.js picks dist/ when it is fresh).
  await buildServer();
  tempDir = await mkdtemp(join(tmpdir(), 'portal-bench-'));
  const dbPath = join(tempDir, 'bench.db');
  const naiveDbPath = join(tempDir, 'naive.db');
  const onSqlite = options.database === 'sqlite';
  let databaseUrl = `sqlite:${dbPath}`;
  if (!onSqlite) {
    const schema = `bench_${process.pid}`;
    await onPostgres(`create schema ${schema}`);
    postgresSchemas.push(schema);
    databaseUrl = postgresSchemaUrl(schema);
  }
  // Limits on, but roomy enough never to refuse the load generator: their cost is measured, not their effect.
  // Files' content in the run's own directory (not the checkout's ./data/files, which a server sweeps at its start);
  // the upload scenario's signed URLs, made during setup, last the whole run (the default 15 minutes do not: a
  // three-round run takes over 20).
  const env = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    FILES_DIR: join(tempDir, 'files'),
    FILES_URL_TTL_SECONDS: '7200',
    HOST: '127.0.0.1',
    LOG_LEVEL,
    ...ROOMY_LIMITS,
  };

  // Every row first, through the service code, then checkpointed (seed-clients.ts); only then the servers.
  const reads = await createWorkspace('Bench', env);
  log(`seeding ${options.clients} clients …`);
  const seedStart = performance.now();
  const seeded = await seed(reads.workspaceId, options.clients, env);
  const seedSeconds = (performance.now() - seedStart) / 1000;
  log(`seeded ${options.clients} clients in ${seedSeconds.toFixed(1)} s`);
  let writes: BenchContext['writes'] = null;
  if (options.mode === 'default') {
    const workspace = await createWorkspace('Bench writes', env);
    const { companyIds, messageChannelIds, senderId } = await seed(workspace.workspaceId, 0, env);
    writes = { ...workspace, companyIds, messageChannelIds, senderId };
  }
  // The naive server gets a copy (taken now, before anything writes): neither server's writes reach the other.
  let naiveDatabase: Record<string, string>;
  if (onSqlite) {
    const wal = await stat(`${dbPath}-wal`).catch(() => null);
    if (wal && wal.size > 0) throw new Error('bench: the seeded database still has a WAL after its checkpoint');
    await copyFile(dbPath, naiveDbPath);
    naiveDatabase = { NAIVE_DATABASE: naiveDbPath };
  } else {
    const naiveSchema = `bench_naive_${process.pid}`;
    postgresSchemas.push(naiveSchema);
    await copyNaiveTables(postgresSchemas[0], naiveSchema);
    naiveDatabase = { NAIVE_DATABASE_URL: postgresSchemaUrl(naiveSchema) };
  }

  const serverPort = await freePort();
  const serverUrl = `http://127.0.0.1:${serverPort}`;
  const server = startChild('server', [...PROFILE_ARGS, ...SERVE_ARGS], {
    cwd: ROOT,
    env: { ...env, PORT: String(serverPort) },
    cpu: pinning.serverCpu,
  });
  track(server, true);
  const urls: Partial<Record<RunningTarget, string>> = { server: serverUrl };
  const processes: Partial<Record<RunningTarget, Child>> = { server };
  {
    const naivePort = await freePort();
    const naiveKeys = { [reads.apiKey]: reads.workspaceId, ...(writes ? { [writes.apiKey]: writes.workspaceId } : {}) };
    const naive = startChild('naive server', [...PROFILE_ARGS, '--import', 'tsx', 'bench/naive-server.ts'], {
      cwd: ROOT,
      env: {
        ...process.env,
        PORT: String(naivePort),
        HOST: '127.0.0.1',
        LOG_LEVEL,
        ...naiveDatabase,
        NAIVE_API_KEYS: JSON.stringify(naiveKeys),
      },
      cpu: pinning.serverCpu,
    });
    track(naive, true);
    urls.naive = `http://127.0.0.1:${naivePort}`;
    processes.naive = naive;
    await waitForHttp(naive, `${urls.naive}/`, () => true, START_TIMEOUT_MS); // any answer: it listens
  }
  await waitForHttp(server, `${serverUrl}/healthz`, (status) => status === 200, START_TIMEOUT_MS);
  // At rest: what start-up left (its garbage included) once the server has settled, before any request but /healthz.
  await new Promise((resolve) => setTimeout(resolve, IDLE_SETTLE_MS));
  const serverIdleRssMb = readMemory(server.process.pid)?.rssMb ?? null;
  const urlOf = (target: RunningTarget) => {
    const url = urls[target];
    if (!url) throw new Error(`bench: no ${target} server in this run`);
    return url;
  };

  const ctx: BenchContext = {
    clients: options.clients,
    reads,
    clientIds: seeded.clientIds,
    messageChannelId: seeded.messageChannelIds[0],
    fileChannelId: seeded.fileChannelId,
    writes,
    serverUrl,
    scratchDir: tempDir,
    loadSeconds: rounds * (settings.warmupSeconds + settings.seconds),
    state: {},
    get: (target, path) => send(urlOf(target), { method: 'GET', path, headers: { 'x-api-key': reads.apiKey } }, 0),
  };

  // Setup and one sample per running target: the naive server must answer what the server answers.
  const prepared: Prepared[] = [];
  // BENCH_ONLY: the scenarios whose key contains it, or any of a comma-separated list (a quick look at one or a few,
  // in the bench's order; the targets then judge only those).
  const only = process.env.BENCH_ONLY?.split(',');
  const chosen = SCENARIOS.filter(
    (s) => (options.mode === 'default' || s.directory) && (!only || only.some((part) => s.key.includes(part))),
  );
  for (const scenario of chosen) {
    const name = scenario.name(ctx);
    log(`setting up ${name} …`);
    await scenario.setup?.(ctx);
    const serverRequest = scenario.request(ctx, 'server');
    const serverSample = await send(serverUrl, serverRequest, 0);
    if (serverSample.status !== scenario.expectedStatus) {
      throw new Error(
        `${name}: the server answered ${serverSample.status}, expected ${scenario.expectedStatus}:\n${serverSample.text.slice(0, 2000)}`,
      );
    }
    let naiveRequest: RequestSpec | undefined;
    let naiveSample: Sample | undefined;
    if (scenario.naive) {
      naiveRequest = scenario.request(ctx, 'naive');
      naiveSample = await send(urlOf('naive'), naiveRequest, 1);
      if (naiveSample.status !== scenario.expectedStatus || naiveSample.bytes !== serverSample.bytes) {
        throw new Error(
          `${name}: the naive server answered ${naiveSample.status} with ${naiveSample.bytes} bytes, ` +
            `the server ${serverSample.status} with ${serverSample.bytes}:\n${naiveSample.text.slice(0, 1000)}\n${serverSample.text.slice(0, 1000)}`,
        );
      }
      // A read must be the same rows, not just the same size (a POST differs in its new id and time).
      if (serverRequest.method === 'GET' && withoutToken(naiveSample.text) !== withoutToken(serverSample.text)) {
        throw new Error(`${name}: the naive server's answer differs from the server's (beyond the nextToken)`);
      }
    }
    prepared.push({
      scenario,
      name,
      kinds: TARGET_ORDER.filter((kind) => kind !== 'naive' || scenario.naive),
      requests: { server: serverRequest, ...(naiveRequest ? { naive: naiveRequest } : {}) },
      samples: { server: serverSample, ...(naiveSample ? { naive: naiveSample } : {}) },
      rounds: { bare: [], naive: [], server: [] },
    });
  }

  let indexBlock = 0;
  const loadOptions = () => ({ cwd: ROOT, loadCpu: pinning.loadCpu, indexStart: ++indexBlock * INDEX_BLOCK, track });
  let peakRssPerRun = true;
  let serverLifetimePeak = 0;
  const notePeak = (child: Child) => {
    const peak = readMemory(child.process.pid)?.peakRssMb;
    if (child === server && peak !== undefined) serverLifetimePeak = Math.max(serverLifetimePeak, peak);
  };

  /** A measured run on a target that stays up (server, naive): its VmHWM reset first, read after. */
  async function measureRunning(target: RunningTarget, p: Prepared, round: number): Promise<RoundSample> {
    const child = processes[target];
    if (!child) throw new Error(`bench: no ${target} server in this run`);
    const pid = child.process.pid;
    notePeak(child);
    const idleRssMb = readMemory(pid)?.rssMb ?? null;
    peakRssPerRun = resetPeakRss(pid) && peakRssPerRun;
    const request = p.requests[target];
    if (!request) throw new Error(`${p.name}: no request for the ${target}`);
    const stats = await measure(urlOf(target), pid, request, p.scenario.expectedStatus, settings, loadOptions());
    notePeak(child);
    return { ...stats, round, peakRssMb: readMemory(pid)?.peakRssMb ?? null, idleRssMb };
  }

  /** A fresh bare Fastify process answering the server's sampled body (same status, same size); `extraEnv` for baseline.ts's options. */
  async function measureBare(p: Prepared, round: number, extraEnv: Record<string, string> = {}): Promise<RoundSample> {
    // One path again and again: the bare route takes any body at the paths' route.
    const { oneUsePaths, ...request } = p.requests.server;
    const sample = p.samples.server;
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const bare = startChild(`bare route for ${p.name}`, ['--import', 'tsx', 'bench/baseline.ts'], {
      cwd: ROOT,
      env: {
        ...process.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL,
        BASELINE_METHOD: request.method,
        BASELINE_PATH: oneUsePaths?.route ?? new URL(request.path, url).pathname, // a route has no query string
        BASELINE_STATUS: String(p.scenario.expectedStatus),
        BASELINE_BODY: sample.text,
        ...(sample.json ? {} : { BASELINE_RAW: '1' }),
        ...extraEnv,
      },
      cpu: pinning.serverCpu,
    });
    track(bare, true);
    try {
      await waitForHttp(bare, `${url}/`, () => true, START_TIMEOUT_MS);
      const check = await send(url, request, 2);
      if (check.status !== p.scenario.expectedStatus || check.bytes !== sample.bytes) {
        throw new Error(
          `${p.name}: the bare route answered ${check.status} with ${check.bytes} bytes, expected ${p.scenario.expectedStatus} with ${sample.bytes}`,
        );
      }
      const pid = bare.process.pid;
      const idleRssMb = readMemory(pid)?.rssMb ?? null;
      peakRssPerRun = resetPeakRss(pid) && peakRssPerRun;
      const stats = await measure(url, pid, request, p.scenario.expectedStatus, settings, loadOptions());
      return { ...stats, round, peakRssMb: readMemory(pid)?.peakRssMb ?? null, idleRssMb };
    } finally {
      await stopChild(bare);
      track(bare, false);
    }
  }

  for (let round = 1; round <= rounds; round++) {
    for (const p of prepared) {
      for (const kind of rotate(p.kinds, round - 1)) {
        log(`round ${round}/${rounds}: ${p.name}: ${kind} …`);
        p.rounds[kind].push(kind === 'bare' ? await measureBare(p, round) : await measureRunning(kind, p, round));
      }
    }
  }
  notePeak(server);

  const scenarios: ScenarioResult[] = prepared.map((p) => {
    const targets: Partial<Record<TargetKind, TargetSummary>> = {};
    for (const kind of p.kinds) {
      const bytes = (kind === 'naive' ? p.samples.naive : p.samples.server)?.bytes ?? 0;
      targets[kind] = summarize(p.rounds[kind], bytes);
    }
    const request = p.requests.server;
    return {
      key: p.scenario.key,
      name: p.name,
      method: request.method,
      path: request.path,
      expectedStatus: p.scenario.expectedStatus,
      targets,
      flagged: Object.values(targets).some((t) => t.unexpected > 0),
    };
  });
  const results: BenchResults = {
    startedAt,
    node: process.version,
    database: options.database,
    clients: options.clients,
    mode: options.mode,
    rounds,
    pinning,
    peakRssPerRun,
    settings: { ...settings, pipelining: 1, logLevel: LOG_LEVEL },
    seedSeconds,
    scenarios,
    serverLifetimePeakRssMb: serverLifetimePeak || null,
    serverIdleRssMb,
  };
  const checks = evaluateTargets(results);
  let report = formatReport(results, checks);

  let limiter: unknown;
  if (options.limiter) {
    // The main servers are done: stop them so the limiter's servers run alone.
    await Promise.all(Object.values(processes).map(stopChild));
    const pointRead = prepared.find((p) => p.scenario.key === 'pointRead');
    if (!pointRead) throw new Error('bench: the point-read scenario is missing');
    const { variants, note } = await limiterVariants();
    log(`limiter cost: ${variants.map((v) => v.name).join(', ')} …`);
    const limiterResults = await measureLimiter(variants, pointRead.requests.server, settings, limiterRounds, async (variant) => {
      const port = await freePort();
      const url = `http://127.0.0.1:${port}`;
      const child = startChild(`server (${variant.name})`, SERVE_ARGS, {
        cwd: ROOT,
        env: { ...env, ...variant.env, PORT: String(port) },
        cpu: pinning.serverCpu,
      });
      track(child, true);
      try {
        await waitForHttp(child, `${url}/readyz`, (status) => status === 200, START_TIMEOUT_MS);
        const stats: Measured = await measure(url, child.process.pid, pointRead.requests.server, 200, settings, loadOptions());
        return stats;
      } finally {
        await stopChild(child);
        track(child, false);
      }
    });
    // What the contract's six response headers cost by themselves: the bare route with and without them.
    const headed = prepared.find((p) => p.scenario.key === 'me') ?? pointRead;
    log(`contract headers' cost on the bare route of ${headed.name} …`);
    const headerResults = await measureLimiter(CONTRACT_HEADER_VARIANTS, headed.requests.server, settings, limiterRounds, (variant) =>
      measureBare(headed, 0, variant.env),
    );
    limiter = { limits: limiterResults, contractHeaders: headerResults };
    report += `\n\n${formatLimiter(limiterResults, note)}\n\n${formatContractHeaders(headerResults, headed.name)}`;
  }

  process.stdout.write(`\n${report}\n`);
  await mkdir(join(ROOT, 'bench', 'results'), { recursive: true });
  await writeFile(RESULTS_FILE[options.database], `${JSON.stringify({ ...results, checks, ...(limiter ? { limiter } : {}) }, null, 2)}\n`);
  process.stdout.write(
    `Results written to ${RESULTS_FILE[options.database]}. The bench took ${((Date.now() - startedAtMs) / 60_000).toFixed(1)} min.\n`,
  );

  const flagged = scenarios.filter((r) => r.flagged).length;
  if (flagged > 0) process.stderr.write(`bench: ${flagged} scenario(s) had unexpected responses (marked !)\n`);
  return flagged > 0 ? 1 : 0;
}

let interrupted = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    interrupted = true;
    process.stderr.write(`bench: ${signal}, stopping every child …\n`);
    void cleanup().finally(() => process.exit(130));
  });
}

let code = 1;
try {
  const options = parseOptions(process.argv.slice(2));
  if (options === 'help') {
    process.stdout.write(`${USAGE}\n`);
    code = 0;
  } else {
    code = await main(options);
  }
} catch (error) {
  if (interrupted) {
    // the children were stopped under it: nothing to explain
  } else if (error instanceof UsageError) {
    process.stderr.write(`bench: ${error.message}\n${USAGE}\n`);
    code = 2;
  } else {
    process.stderr.write(`bench failed: ${(error as Error).stack ?? error}\n`);
  }
} finally {
  await cleanup();
}
// Exit explicitly: nothing left running (timers, sockets) should keep the process alive.
process.exit(interrupted ? 130 : code);
