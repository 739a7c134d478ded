// `npm run bench -- --limiter`: the limiter's cost, the point read against servers differing only in
// their limit state (off, in-process, Redis), rounds interleaved. The Redis variant runs only when
// BENCH_REDIS_URL is set (a Redis the bench may write to, keys under a bench-<time>: prefix, expiring)
// and something listens there.
import { connect } from 'node:net';
import type { LoadSettings, Measured, RequestSpec } from './load.js';

interface LimiterVariant {
  readonly name: string;
  readonly env: Record<string, string>;
}

interface LimiterResult {
  readonly variant: string;
  /** Server CPU time per response, µs: the steady measure of the limiter's cost. */
  readonly cpuUsPerRequest: number | null;
  readonly requestsPerSec: number;
  readonly latencyP99Ms: number;
  readonly unexpected: number;
}

/** Starts a server with `env` added, measures `request` on it, stops it. */
type MeasureServer = (variant: LimiterVariant, request: RequestSpec, settings: LoadSettings) => Promise<Measured>;

/** Whether something accepts TCP connections at the Redis URL's host and port (1 s at most). */
function redisListening(redisUrl: string): Promise<boolean> {
  const url = new URL(redisUrl);
  return new Promise((resolve) => {
    const socket = connect({ host: url.hostname, port: Number(url.port || 6379) });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

export async function limiterVariants(): Promise<{ variants: LimiterVariant[]; note: string | null }> {
  const variants: LimiterVariant[] = [
    { name: 'limits off', env: { LIMITS_ENABLED: 'false' } },
    { name: 'in-process limits', env: {} },
  ];
  // Never a Redis found by chance: one that happens to run here may be someone else's.
  const redisUrl = process.env.BENCH_REDIS_URL;
  if (!redisUrl) return { variants, note: 'Redis variant skipped: set BENCH_REDIS_URL to a Redis the bench may use' };
  if (!(await redisListening(redisUrl))) return { variants, note: `Redis variant skipped: nothing listens at ${redisUrl}` };
  variants.push({ name: 'Redis limits', env: { REDIS_URL: redisUrl, REDIS_KEY_PREFIX: `bench-${Date.now()}:` } });
  return { variants, note: null };
}

/** Every variant once per round, rounds interleaved; the median round of each variant by CPU per request. */
export async function measureLimiter(
  variants: LimiterVariant[],
  request: RequestSpec,
  settings: LoadSettings,
  rounds: number,
  measureServer: MeasureServer,
): Promise<LimiterResult[]> {
  const samples = new Map<string, LimiterResult[]>();
  for (let round = 0; round < rounds; round++) {
    for (const variant of variants) {
      const stats = await measureServer(variant, request, settings);
      const list = samples.get(variant.name) ?? [];
      list.push({
        variant: variant.name,
        cpuUsPerRequest: stats.cpuUsPerRequest,
        requestsPerSec: stats.requestsPerSec,
        latencyP99Ms: stats.latencyP99Ms,
        unexpected: stats.unexpected,
      });
      samples.set(variant.name, list);
    }
  }
  return [...samples.values()].map(
    (list) => [...list].sort((a, b) => (a.cpuUsPerRequest ?? 0) - (b.cpuUsPerRequest ?? 0))[Math.floor(list.length / 2)],
  );
}

/** The bare route without and with the six headers the contract adds to every /v1 answer (baseline.ts). */
export const CONTRACT_HEADER_VARIANTS: LimiterVariant[] = [
  { name: 'bare', env: {} },
  { name: 'bare + headers', env: { BASELINE_CONTRACT_HEADERS: '1' } },
];

/** Each variant's CPU and req/s against the first row's. */
function formatVariants(title: string, results: LimiterResult[], note: string | null): string {
  const off = results[0];
  const percent = (value: number | null, base: number | null) =>
    value === null || base === null ? '-' : `${(((value - base) / base) * 100).toFixed(1)}%`;
  const lines = results.map((r) =>
    [
      r.variant.padEnd(18),
      (r.cpuUsPerRequest === null ? '-' : r.cpuUsPerRequest.toFixed(1)).padStart(17),
      (r === off ? '—' : percent(r.cpuUsPerRequest, off.cpuUsPerRequest)).padStart(10),
      r.requestsPerSec.toFixed(0).padStart(9),
      (r === off ? '—' : percent(off.requestsPerSec, r.requestsPerSec)).padStart(12),
      String(r.latencyP99Ms).padStart(6),
      String(r.unexpected).padStart(10),
    ].join(' | '),
  );
  return [
    title,
    'variant            | server CPU µs/req | CPU vs 1st |     req/s | req/s vs 1st | p99 ms | unexpected',
    ...lines,
    ...(note ? [note] : []),
  ].join('\n');
}

export const formatLimiter = (results: LimiterResult[], note: string | null) =>
  formatVariants(
    'Limiter cost on GET /v1/clients/{id} (median round by CPU per request; CPU per request is the steady measure, req/s moves with machine noise)',
    results,
    note,
  );

export const formatContractHeaders = (results: LimiterResult[], scenario: string) =>
  formatVariants(
    `The contract's response headers (X-Request-Id, X-RateLimit-*, X-Service-Quota-*) on the bare route of ${scenario}, by themselves`,
    results,
    null,
  );
