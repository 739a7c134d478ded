// `npm run bench`: the real server vs a bare Fastify baseline, scenario by scenario (see bench/README.md).
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Child, freePort, readCpuMs, readMemory, startChild, stopChild, waitForHttp } from './children.js';
import { type LoadSettings, type PreparedRequest, measure } from './load.js';
import { type BenchResults, type ScenarioResult, type TargetResult, formatReport } from './report.js';
import { type BenchContext, type HttpMethod, SCENARIOS, type Scenario } from './scenarios.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const RESULTS_FILE = join(ROOT, 'bench', 'results', 'latest.json');
const LOG_LEVEL = 'warn'; // no per-request logs on either side: the baseline has none
const START_TIMEOUT_MS = 30_000;
const REQUEST_TIMEOUT_MS = 10_000;
const CLI_TIMEOUT_MS = 30_000;

/** The server as `npm start` runs it (package.json: the V8 flag that keeps peak memory down). */
const SERVE_ARGS = ['--max-semi-space-size=4', 'bin/portal.js', 'serve'];

const ROOMY_LIMITS = {
  RATE_LIMIT_GET_CAPACITY: '1000000000',
  RATE_LIMIT_GET_REFILL: '1000000000',
  RATE_LIMIT_WRITE_CAPACITY: '1000000000',
  RATE_LIMIT_WRITE_REFILL: '1000000000',
};

/** The limiter's cost: the same request against servers differing only in their limit state. */
const LIMITER_VARIANTS: { name: string; env: Record<string, string> }[] = [
  { name: 'limits off', env: { LIMITS_ENABLED: 'false' } },
  { name: 'in-process limits', env: {} },
  {
    name: 'Redis limits',
    env: { REDIS_URL: process.env.BENCH_REDIS_URL || 'redis://127.0.0.1:6379', REDIS_KEY_PREFIX: `bench-${Date.now()}:` },
  },
];

interface LimiterResult {
  readonly variant: string;
  /** Server CPU time per response, µs: the steady measure of the limiter's cost. */
  readonly cpuUsPerRequest: number;
  readonly requestsPerSec: number;
  readonly latencyP99Ms: number;
  readonly unexpected: number;
}

/** Runs `request` against one server per variant, one after the other; rounds interleave to spread noise. */
async function measureLimiter(
  request: PreparedRequest,
  env: NodeJS.ProcessEnv,
  settings: LoadSettings,
  rounds: number,
): Promise<LimiterResult[]> {
  const samples = new Map<string, LimiterResult[]>();
  for (let round = 0; round < rounds; round++) {
    for (const variant of LIMITER_VARIANTS) {
      const port = await freePort();
      const url = `http://127.0.0.1:${port}`;
      const child = startChild(`server (${variant.name})`, SERVE_ARGS, ROOT, { ...env, ...variant.env, PORT: String(port) });
      children.add(child);
      try {
        await waitForHttp(child, `${url}/readyz`, (status) => status === 200, START_TIMEOUT_MS);
        await measure(url, request, 200, { ...settings, seconds: settings.warmupSeconds || 1, warmupSeconds: 0 }); // warm-up, CPU not counted
        const cpuBefore = readCpuMs(child.process.pid) ?? 0;
        const stats = await measure(url, request, 200, { ...settings, warmupSeconds: 0 });
        const cpuUsPerRequest = (((readCpuMs(child.process.pid) ?? 0) - cpuBefore) * 1000) / Math.max(1, stats.responses);
        const list = samples.get(variant.name) ?? [];
        list.push({
          variant: variant.name,
          cpuUsPerRequest,
          requestsPerSec: stats.requestsPerSec,
          latencyP99Ms: stats.latencyP99Ms,
          unexpected: stats.unexpected,
        });
        samples.set(variant.name, list);
      } finally {
        await stopChild(child);
        children.delete(child);
      }
    }
  }
  // The median round of each variant, by CPU per request.
  return [...samples.values()].map((list) => [...list].sort((a, b) => a.cpuUsPerRequest - b.cpuUsPerRequest)[Math.floor(list.length / 2)]);
}

function formatLimiter(results: LimiterResult[]): string {
  const off = results[0];
  const percent = (value: number, base: number) => `${(((value - base) / base) * 100).toFixed(1)}%`;
  const lines = results.map((r) =>
    [
      r.variant.padEnd(18),
      r.cpuUsPerRequest.toFixed(1).padStart(14),
      (r === off ? '—' : percent(r.cpuUsPerRequest, off.cpuUsPerRequest)).padStart(11),
      r.requestsPerSec.toFixed(0).padStart(9),
      (r === off ? '—' : percent(off.requestsPerSec, r.requestsPerSec)).padStart(12),
      String(r.latencyP99Ms).padStart(6),
      String(r.unexpected).padStart(10),
    ].join(' | '),
  );
  return [
    'Limiter cost on GET /v1/clients/{id} (median of the rounds; CPU per request is the steady measure, req/s moves with machine noise)',
    'variant            | server CPU µs/req | CPU vs off |     req/s | req/s vs off | p99 ms | unexpected',
    ...lines,
  ].join('\n');
}

function envInt(name: string, fallback: number, min: number): number {
  const raw = process.env[name];
  const value = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isInteger(value) || value < min) throw new Error(`${name} must be an integer >= ${min} (got "${raw}")`);
  return value;
}

// Everything to undo, whatever way the bench ends.
const children = new Set<Child>();
let tempDir: string | undefined;

async function cleanup(): Promise<void> {
  await Promise.all([...children].map(stopChild));
  children.clear();
  if (tempDir) await rm(tempDir, { recursive: true, force: true });
  tempDir = undefined;
}

interface Sample {
  readonly status: number;
  readonly text: string;
  readonly bytes: number;
}

async function send(baseUrl: string, request: PreparedRequest): Promise<Sample> {
  const body = request.nextBody?.();
  const headers = body === undefined ? request.headers : { 'content-type': 'application/json', ...request.headers };
  const response = await fetch(`${baseUrl}${request.path}`, {
    method: request.method,
    headers,
    body,
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  const buffer = Buffer.from(await response.arrayBuffer());
  return { status: response.status, text: buffer.toString('utf8'), bytes: buffer.length };
}

/** `node bin/portal.js <args> --json`: one JSON line on stdout. */
function runCli(args: string[], env: NodeJS.ProcessEnv, argv = ['bin/portal.js', ...args, '--json']): Promise<unknown> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, argv, { cwd: ROOT, env, timeout: CLI_TIMEOUT_MS }, (error, stdout, stderr) => {
      const lines = stdout.trim().split('\n').filter(Boolean);
      if (error || lines.length !== 1) {
        reject(new Error(`portal ${args.join(' ')} failed (${error?.message ?? `${lines.length} output lines`}):\n${stdout}${stderr}`));
        return;
      }
      try {
        resolve(JSON.parse(lines[0]));
      } catch {
        reject(new Error(`portal ${args.join(' ')} printed no JSON: ${stdout}`));
      }
    });
  });
}

function seededWorkspace(output: unknown): { workspaceId: string; apiKeyId: string; apiKey: string } {
  const { workspaceId, apiKeyId, apiKey } = (output ?? {}) as Record<string, unknown>;
  if (typeof workspaceId !== 'string' || typeof apiKeyId !== 'string' || typeof apiKey !== 'string') {
    throw new Error(`unexpected output of portal workspaces create: ${JSON.stringify(output)}`);
  }
  return { workspaceId, apiKeyId, apiKey };
}

function prepare(scenario: Scenario, ctx: BenchContext): PreparedRequest {
  const { body } = scenario;
  let index = 0; // shared by the sample, warm-up and measured runs, so every body stays distinct
  return {
    method: scenario.method,
    path: scenario.path(ctx),
    headers: scenario.headers?.(ctx) ?? {},
    ...(body ? { nextBody: () => body(ctx, index++) } : {}),
  };
}

/** Runs the baseline in its own process, serving a body of the same size as the server's `sample`. */
async function measureBaseline(
  scenario: Scenario,
  request: PreparedRequest,
  sample: Sample,
  settings: LoadSettings,
): Promise<TargetResult> {
  const port = await freePort();
  const baselineUrl = `http://127.0.0.1:${port}`;
  const baseline = startChild(`baseline for ${scenario.name}`, ['--import', 'tsx', 'bench/baseline.ts'], ROOT, {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL,
    BASELINE_METHOD: scenario.method,
    BASELINE_PATH: new URL(request.path, baselineUrl).pathname, // a route has no query string
    BASELINE_STATUS: String(scenario.expectedStatus),
    BASELINE_BODY: sample.text,
  });
  children.add(baseline);
  try {
    await waitForHttp(baseline, `${baselineUrl}/`, () => true, START_TIMEOUT_MS); // any answer: it listens
    const check = await send(baselineUrl, request);
    if (check.status !== scenario.expectedStatus || check.bytes !== sample.bytes) {
      throw new Error(
        `${scenario.name}: the baseline answered ${check.status} with ${check.bytes} bytes, ` +
          `expected ${scenario.expectedStatus} with ${sample.bytes} bytes`,
      );
    }
    const stats = await measure(baselineUrl, request, scenario.expectedStatus, settings);
    return { ...stats, bodyBytes: check.bytes, memory: readMemory(baseline.process.pid) };
  } finally {
    // Stopped before the server is measured: nothing else competes for the CPU meanwhile.
    await stopChild(baseline);
    children.delete(baseline);
  }
}

/** Setup, one sampled response from the server, then the baseline, then the server under load. */
async function runScenario(scenario: Scenario, ctx: BenchContext, server: Child, settings: LoadSettings): Promise<ScenarioResult> {
  await scenario.setup?.(ctx);
  const request = prepare(scenario, ctx);
  const sample = await send(ctx.serverUrl, request);
  if (sample.status !== scenario.expectedStatus) {
    throw new Error(
      `${scenario.name}: the server answered ${sample.status}, expected ${scenario.expectedStatus}:\n${sample.text.slice(0, 2000)}`,
    );
  }
  const baseline = await measureBaseline(scenario, request, sample, settings);
  const stats = await measure(ctx.serverUrl, request, scenario.expectedStatus, settings);
  return {
    name: scenario.name,
    method: scenario.method,
    path: request.path,
    expectedStatus: scenario.expectedStatus,
    baseline,
    server: { ...stats, bodyBytes: sample.bytes, memory: readMemory(server.process.pid) },
    ratio: stats.requestsPerSec / baseline.requestsPerSec,
    flagged: baseline.unexpected > 0 || stats.unexpected > 0,
  };
}

async function main(): Promise<number> {
  const settings: LoadSettings = {
    connections: envInt('BENCH_CONNECTIONS', 50, 1),
    seconds: envInt('BENCH_SECONDS', 10, 1),
    warmupSeconds: envInt('BENCH_WARMUP_SECONDS', 2, 0),
  };
  const startedAt = new Date().toISOString();
  // The server runs compiled, as `npm start` runs it (bin/portal.js picks dist/ when it is fresh).
  await new Promise<void>((resolve, reject) =>
    execFile(process.execPath, ['scripts/build.mjs'], { cwd: ROOT, timeout: CLI_TIMEOUT_MS }, (error) =>
      error ? reject(error) : resolve(),
    ),
  );
  tempDir = await mkdtemp(join(tmpdir(), 'portal-bench-'));
  // Limits on, but roomy enough never to refuse the load generator: their cost is measured, not their effect.
  const env = { ...process.env, DATABASE_URL: `sqlite:${join(tempDir, 'bench.db')}`, HOST: '127.0.0.1', LOG_LEVEL, ...ROOMY_LIMITS };

  const workspace = seededWorkspace(await runCli(['workspaces', 'create', '--name', 'Bench', '--daily-quota', '100000000'], env));
  const port = await freePort();
  const serverUrl = `http://127.0.0.1:${port}`;
  const server = startChild('server', SERVE_ARGS, ROOT, { ...env, PORT: String(port) });
  children.add(server);
  await waitForHttp(server, `${serverUrl}/healthz`, (status) => status === 200, START_TIMEOUT_MS);

  const ctx: BenchContext = {
    serverUrl,
    ...workspace,
    state: {},
    api: (method: HttpMethod, path: string, body?: unknown) =>
      send(serverUrl, {
        method,
        path,
        headers: { 'x-api-key': workspace.apiKey },
        ...(body === undefined ? {} : { nextBody: () => JSON.stringify(body) }),
      }),
    cli: (args) => runCli(args, env),
    script: (path, args) => runCli(args, env, ['--import', 'tsx', path, ...args]),
  };

  const scenarios: ScenarioResult[] = [];
  for (const scenario of SCENARIOS) {
    process.stderr.write(`bench: ${scenario.name} …\n`);
    scenarios.push(await runScenario(scenario, ctx, server, settings));
  }

  const pointRead = SCENARIOS.find((s) => s.name.startsWith('GET /v1/clients/{id}'));
  if (!pointRead) throw new Error('bench: the point-read scenario is missing');
  const limiterRequest = prepare(pointRead, ctx);
  process.stderr.write('bench: limiter cost …\n');
  const limiter = await measureLimiter(limiterRequest, env, settings, envInt('BENCH_LIMITER_ROUNDS', 3, 1));

  const baselinePeaks = scenarios.flatMap((r) => (r.baseline.memory ? [r.baseline.memory.peakRssMb] : []));
  const results: BenchResults = {
    startedAt,
    node: process.version,
    settings: { ...settings, pipelining: 1, logLevel: LOG_LEVEL },
    scenarios,
    peakRssMb: {
      server: readMemory(server.process.pid)?.peakRssMb ?? null,
      baseline: baselinePeaks.length > 0 ? Math.max(...baselinePeaks) : null,
    },
  };
  process.stdout.write(`\n${formatReport(results)}\n\n${formatLimiter(limiter)}\n`);
  await mkdir(join(ROOT, 'bench', 'results'), { recursive: true });
  await writeFile(RESULTS_FILE, `${JSON.stringify({ ...results, limiter }, null, 2)}\n`);
  process.stdout.write(`Results written to ${RESULTS_FILE}\n`);

  const flagged = scenarios.filter((r) => r.flagged).length;
  if (flagged > 0) process.stderr.write(`bench: ${flagged} scenario(s) had unexpected responses (marked !)\n`);
  return flagged > 0 ? 1 : 0;
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void cleanup().finally(() => process.exit(130)));
}

let code = 1;
try {
  code = await main();
} catch (error) {
  process.stderr.write(`bench failed: ${(error as Error).stack ?? error}\n`);
} finally {
  await cleanup();
}
// Exit explicitly: nothing left running (autocannon timers, sockets) should keep the process alive.
process.exit(code);
