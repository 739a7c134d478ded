// Drives autocannon against one target and boils the result down to what the report shows.
import autocannon from 'autocannon';
import { withTimeout } from './children.js';
import type { HttpMethod } from './scenarios.js';

export interface LoadSettings {
  readonly connections: number;
  /** Length of the measured run. */
  readonly seconds: number;
  /** Length of the discarded run before it (JIT, caches, connection set-up). */
  readonly warmupSeconds: number;
}

/** A scenario's request, resolved once (after setup) and sent identically to both targets. */
export interface PreparedRequest {
  readonly method: HttpMethod;
  readonly path: string;
  readonly headers: Record<string, string>;
  /** A fresh JSON body per request (POSTs); absent for requests without a body. */
  readonly nextBody?: () => string;
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

function options(baseUrl: string, request: PreparedRequest, connections: number, seconds: number): autocannon.Options {
  const common = { url: `${baseUrl}${request.path}`, connections, pipelining: 1, duration: seconds, timeout: 10 };
  const headers = request.nextBody ? { 'content-type': 'application/json', ...request.headers } : request.headers;
  const { nextBody } = request;
  if (!nextBody) return { ...common, method: request.method, headers };
  // setupRequest runs before every request: that is how each one gets its own body.
  return { ...common, requests: [{ method: request.method, headers, setupRequest: (req) => ({ ...req, body: nextBody() }) }] };
}

function summarize(result: autocannon.Result, expectedStatus: number): RunStats {
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

async function run(baseUrl: string, request: PreparedRequest, connections: number, seconds: number): Promise<autocannon.Result> {
  // autocannon stops itself after `seconds`; the timeout only guards against a hang.
  return withTimeout(autocannon(options(baseUrl, request, connections, seconds)), (seconds + 30) * 1000, `autocannon ${baseUrl}`);
}

/** A warm-up run (discarded), then the measured run, with the same settings for every target. */
export async function measure(
  baseUrl: string,
  request: PreparedRequest,
  expectedStatus: number,
  settings: LoadSettings,
): Promise<RunStats> {
  if (settings.warmupSeconds > 0) await run(baseUrl, request, settings.connections, settings.warmupSeconds);
  return summarize(await run(baseUrl, request, settings.connections, settings.seconds), expectedStatus);
}
