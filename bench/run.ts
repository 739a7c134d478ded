// `npm run bench`: the real server vs a bare Fastify baseline, scenario by scenario (see bench/README.md).
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Child, freePort, readMemory, startChild, stopChild, waitForHttp } from './children.js';
import { type LoadSettings, type PreparedRequest, measure } from './load.js';
import { type BenchResults, type ScenarioResult, type TargetResult, formatReport } from './report.js';
import { type BenchContext, type HttpMethod, SCENARIOS, type Scenario } from './scenarios.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const RESULTS_FILE = join(ROOT, 'bench', 'results', 'latest.json');
const LOG_LEVEL = 'warn'; // no per-request logs on either side: the baseline has none
const START_TIMEOUT_MS = 30_000;
const REQUEST_TIMEOUT_MS = 10_000;
const CLI_TIMEOUT_MS = 30_000;

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
async function measureBaseline(scenario: Scenario, request: PreparedRequest, sample: Sample, settings: LoadSettings): Promise<TargetResult> {
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
    throw new Error(`${scenario.name}: the server answered ${sample.status}, expected ${scenario.expectedStatus}:\n${sample.text.slice(0, 2000)}`);
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
    execFile(process.execPath, ['scripts/build.mjs'], { cwd: ROOT, timeout: CLI_TIMEOUT_MS }, (error) => (error ? reject(error) : resolve())),
  );
  tempDir = await mkdtemp(join(tmpdir(), 'portal-bench-'));
  const env = { ...process.env, DATABASE_URL: `sqlite:${join(tempDir, 'bench.db')}`, HOST: '127.0.0.1', LOG_LEVEL };

  const workspace = seededWorkspace(await runCli(['workspaces', 'create', '--name', 'Bench', '--daily-quota', '100000000'], env));
  const port = await freePort();
  const serverUrl = `http://127.0.0.1:${port}`;
  const server = startChild('server', ['bin/portal.js', 'serve'], ROOT, { ...env, PORT: String(port) });
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
  process.stdout.write(`\n${formatReport(results)}\n`);
  await mkdir(join(ROOT, 'bench', 'results'), { recursive: true });
  await writeFile(RESULTS_FILE, `${JSON.stringify(results, null, 2)}\n`);
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
