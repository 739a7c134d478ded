// The load generator, in a process of its own so the bench can pin it to another CPU than the servers
// (`taskset -c <cpu> node --import tsx bench/load-worker.ts`, started by bench/load.ts). Reads its
// WorkerConfig from BENCH_WORKER_CONFIG, runs the warm-up, prints {"event":"ready"}, waits for a line
// on stdin (the bench reads the target's CPU time meanwhile), runs the measured run and prints
// {"event":"result","stats":…}. Every wait is bounded.
import { readFileSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import { withTimeout } from './children.js';
import { type RunStats, type WorkerConfig, type WorkerMessage, bodyMaker } from './load.js';

const GO_TIMEOUT_MS = 60_000;

function readConfig(): WorkerConfig {
  const text = process.env.BENCH_WORKER_CONFIG;
  if (!text) {
    process.stderr.write('load-worker: BENCH_WORKER_CONFIG is required\n');
    process.exit(2);
  }
  return JSON.parse(text) as WorkerConfig;
}

const config = readConfig();
const { request, settings, expectedStatus } = config;
const nextBody = request.body ? bodyMaker(request.body, config.indexStart) : undefined;

/** The one-use paths, from where the last run left off; `save` records how far this run went. */
function oneUsePaths(spec: NonNullable<typeof request.oneUsePaths>) {
  const paths = readFileSync(spec.file, 'utf8').split('\n');
  let next = Number(readFileSync(`${spec.file}.next`, 'utf8'));
  return {
    // Past the last one, the last again: its 409s count as unexpected answers, and the run says so.
    next: () => paths[Math.min(next++, paths.length - 1)],
    save: () => writeFileSync(`${spec.file}.next`, String(Math.min(next, paths.length))),
  };
}
const paths = request.oneUsePaths ? oneUsePaths(request.oneUsePaths) : undefined;

function options(seconds: number): autocannon.Options {
  const common = { url: `${config.url}${request.path}`, connections: settings.connections, pipelining: 1, duration: seconds, timeout: 10 };
  if (paths) {
    const { method, headers, content } = request;
    return { ...common, requests: [{ method, headers, body: content, setupRequest: (req) => ({ ...req, path: paths.next() }) }] };
  }
  if (request.content !== undefined) return { ...common, method: request.method, headers: request.headers, body: request.content };
  if (!nextBody) return { ...common, method: request.method, headers: request.headers };
  const headers = { 'content-type': 'application/json', ...request.headers };
  // setupRequest runs before every request: that is how each one gets its own body.
  return { ...common, requests: [{ method: request.method, headers, setupRequest: (req) => ({ ...req, body: nextBody() }) }] };
}

function summarize(result: autocannon.Result): RunStats {
  const statusCounts = Object.fromEntries(Object.entries(result.statusCodeStats).map(([status, { count }]) => [status, count]));
  const responses = Object.values(statusCounts).reduce((sum, count) => sum + count, 0);
  const wrongStatus = responses - (statusCounts[String(expectedStatus)] ?? 0);
  return {
    requestsPerSec: result.requests.average,
    latencyAvgMs: result.latency.average,
    latencyP50Ms: result.latency.p50,
    latencyP99Ms: result.latency.p99,
    responses,
    statusCounts,
    unexpected: wrongStatus + result.errors, // autocannon counts timeouts among errors
    errors: result.errors,
    timeouts: result.timeouts,
  };
}

// autocannon stops itself after `seconds`; the timeout only guards against a hang.
const run = (seconds: number) => withTimeout(autocannon(options(seconds)), (seconds + 30) * 1000, `autocannon ${config.url}`);

const emit = (message: WorkerMessage) =>
  new Promise<void>((resolve) => process.stdout.write(`${JSON.stringify(message)}\n`, () => resolve()));

function waitForGo(): Promise<void> {
  const lines = createInterface({ input: process.stdin });
  return withTimeout(
    new Promise<void>((resolve) => lines.once('line', () => resolve())),
    GO_TIMEOUT_MS,
    'load-worker: the go from the bench',
  ).finally(() => lines.close());
}

try {
  if (settings.warmupSeconds > 0) await run(settings.warmupSeconds);
  const go = waitForGo();
  await emit({ event: 'ready' });
  await go;
  const result = await run(settings.seconds);
  paths?.save();
  await emit({ event: 'result', stats: summarize(result) });
  process.exit(0);
} catch (error) {
  process.stderr.write(`load-worker failed: ${(error as Error).stack ?? error}\n`);
  process.exit(1);
}
