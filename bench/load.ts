// One measurement: the load worker (bench/load-worker.ts, autocannon in a process of its own, pinned to
// its own CPU) drives one target, and the target's CPU time is read around the measured run.
import { type Child, readCpuMs, startChild, stopChild } from './children.js';

type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface LoadSettings {
  readonly connections: number;
  /** Length of the measured run. */
  readonly seconds: number;
  /** Length of the discarded run before it (JIT, caches, connection set-up). */
  readonly warmupSeconds: number;
}

/**
 * A request body per request, as data (it crosses into the worker process): `{{i}}` becomes the
 * request's index, `{{v}}` the value `values[index % values.length]`.
 */
interface BodySpec {
  readonly template: string;
  readonly values: readonly string[];
}

/** A scenario's request, resolved once (after setup). */
export interface RequestSpec {
  readonly method: HttpMethod;
  readonly path: string;
  readonly headers: Record<string, string>;
  /** A fresh JSON body per request (POSTs); absent for requests without a body. */
  readonly body?: BodySpec;
  /** The same body on every request, as it is (its content type among the headers): an upload's bytes. */
  readonly content?: string;
  /**
   * Paths each used once (an upload URL takes its content once): `file` holds one a line, and `<file>.next` the
   * index of the first one not used yet; each request goes to the next, across runs (`path` is the first, which the
   * bench's sample request uses). `route` is the route they share, for the bare route to register.
   */
  readonly oneUsePaths?: { readonly file: string; readonly route: string };
}

/** Bodies numbered from `start` on, one per call. */
export function bodyMaker(spec: BodySpec, start: number): () => string {
  let index = start;
  return () => {
    const i = index++;
    return spec.template.replaceAll('{{i}}', String(i)).replaceAll('{{v}}', spec.values[i % spec.values.length] ?? '');
  };
}

export interface RunStats {
  readonly requestsPerSec: number;
  readonly latencyAvgMs: number;
  readonly latencyP50Ms: number;
  readonly latencyP99Ms: number;
  readonly responses: number;
  /** Responses per HTTP status, e.g. { "200": 51234 }. */
  readonly statusCounts: Record<string, number>;
  /** Responses whose status was not the expected one, plus connection errors and timeouts. */
  readonly unexpected: number;
  readonly errors: number;
  readonly timeouts: number;
}

/** What the bench hands the worker (JSON, its one argument). */
export interface WorkerConfig {
  readonly url: string;
  readonly request: RequestSpec;
  readonly expectedStatus: number;
  readonly settings: LoadSettings;
  /** Index of the first body (bodies stay distinct across runs). */
  readonly indexStart: number;
}

/** The worker's stdout, one JSON line each: `ready` after the warm-up, `result` after the measured run. */
export type WorkerMessage = { readonly event: 'ready' } | { readonly event: 'result'; readonly stats: RunStats };

export interface Measured extends RunStats {
  /** Target CPU (user + system) over the measured run ÷ responses, µs; null off Linux. */
  readonly cpuUsPerRequest: number | null;
  /** Target CPU over the measured run ÷ its wall-clock time, %: near 100 when the pinned target was the bottleneck. */
  readonly targetCpuPercent: number | null;
  /** The load worker's CPU over the measured run, %: near 100 means the load generator, not the target, set the pace. */
  readonly loadCpuPercent: number | null;
}

interface MeasureOptions {
  readonly cwd: string;
  /** CPU of the load worker; null: unpinned. */
  readonly loadCpu: string | null;
  readonly indexStart: number;
  /** Registers the worker while it runs, so an interrupted bench stops it too. */
  readonly track: (child: Child, running: boolean) => void;
}

const difference = (before: number | null, after: number | null) => (before === null || after === null ? null : after - before);

/** Slack over the run's own length: worker start-up, connection set-up, autocannon's last timeouts. */
const WORKER_SLACK_MS = 60_000;

/**
 * Warm-up (discarded), then the measured run, from the worker; the target's CPU time (pid) is read
 * when the worker reports its warm-up done (before it starts the measured run) and again when its
 * result arrives. Bounded: the worker is killed after the runs' length plus a minute.
 */
export async function measure(
  baseUrl: string,
  pid: number | undefined,
  request: RequestSpec,
  expectedStatus: number,
  settings: LoadSettings,
  options: MeasureOptions,
): Promise<Measured> {
  const config: WorkerConfig = { url: baseUrl, request, expectedStatus, settings, indexStart: options.indexStart };
  const worker = startChild(`load worker for ${request.method} ${baseUrl}${request.path}`, ['--import', 'tsx', 'bench/load-worker.ts'], {
    cwd: options.cwd,
    env: { ...process.env, BENCH_WORKER_CONFIG: JSON.stringify(config) },
    cpu: options.loadCpu,
    stdin: true,
  });
  options.track(worker, true);
  let timer: NodeJS.Timeout | undefined;
  try {
    return await new Promise<Measured>((resolve, reject) => {
      let cpuBefore: number | null = null;
      let loadCpuBefore: number | null = null;
      let readyAt = 0;
      let pending = '';
      const limitMs = (settings.warmupSeconds + settings.seconds) * 1000 + WORKER_SLACK_MS;
      timer = setTimeout(() => reject(new Error(`${worker.name}: no result within ${limitMs / 1000} s`)), limitMs);
      worker.process.stdin?.on('error', () => {}); // a worker gone early: its 'close' below says so
      worker.process.stdout?.on('data', (chunk: Buffer) => {
        pending += chunk.toString();
        for (let newline = pending.indexOf('\n'); newline >= 0; newline = pending.indexOf('\n')) {
          const line = pending.slice(0, newline).trim();
          pending = pending.slice(newline + 1);
          if (!line.startsWith('{')) continue;
          let message: WorkerMessage;
          try {
            message = JSON.parse(line) as WorkerMessage;
          } catch {
            reject(new Error(`${worker.name} printed a malformed line: ${line.slice(0, 200)}`));
            return;
          }
          if (message.event === 'ready') {
            cpuBefore = readCpuMs(pid);
            loadCpuBefore = readCpuMs(worker.process.pid);
            readyAt = performance.now();
            worker.process.stdin?.write('go\n');
          } else {
            const wallMs = performance.now() - readyAt;
            const cpuMs = difference(cpuBefore, readCpuMs(pid));
            const loadCpuMs = difference(loadCpuBefore, readCpuMs(worker.process.pid));
            resolve({
              ...message.stats,
              cpuUsPerRequest: cpuMs === null ? null : (cpuMs * 1000) / Math.max(1, message.stats.responses),
              targetCpuPercent: cpuMs === null ? null : (cpuMs / wallMs) * 100,
              loadCpuPercent: loadCpuMs === null ? null : (loadCpuMs / wallMs) * 100,
            });
          }
        }
      });
      // 'close': after its stdout is drained, so a result printed just before exiting is read first.
      worker.process.once('close', (code, signal) =>
        reject(new Error(`${worker.name} exited (${signal ?? code}) without a result:\n${worker.output()}`)),
      );
    });
  } finally {
    clearTimeout(timer);
    await stopChild(worker);
    options.track(worker, false);
  }
}
