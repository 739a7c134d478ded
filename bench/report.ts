// The printed report, the targets of issue 9 (PASS/MISS), and the shape of bench/results/latest.json.
import type { Pinning } from './children.js';
import type { LoadSettings, Measured } from './load.js';
import type { ScenarioKey } from './scenarios.js';

/** bare: a Fastify route answering a fixed body of the server's size; naive: bench/naive-server.ts; server: the real one. */
export type TargetKind = 'bare' | 'naive' | 'server';
export const TARGET_ORDER: readonly TargetKind[] = ['bare', 'naive', 'server'];

/** One measured run of one target. */
export interface RoundSample extends Measured {
  readonly round: number;
  /** Peak RSS (VmHWM) of the target during this run (warm-up included), MB; null off Linux. */
  readonly peakRssMb: number | null;
  /** RSS of the target at rest just before this run (VmRSS), MB; null off Linux. */
  readonly idleRssMb?: number | null;
}

/** A target over the rounds: the median of each metric on its own (not one median round), and every round. */
export interface TargetSummary {
  readonly requestsPerSec: number;
  readonly latencyP50Ms: number;
  readonly latencyP99Ms: number;
  readonly cpuUsPerRequest: number | null;
  readonly targetCpuPercent: number | null;
  readonly loadCpuPercent: number | null;
  /** The largest of the rounds. */
  readonly peakRssMb: number | null;
  /** The RSS at rest before a run, the largest of the rounds (absent in results written before issue 30). */
  readonly idleRssMb?: number | null;
  /** Summed over the rounds. */
  readonly unexpected: number;
  /** Size of one sampled response body, bytes. */
  readonly bodyBytes: number;
  readonly rounds: RoundSample[];
}

export interface ScenarioResult {
  readonly key: ScenarioKey;
  readonly name: string;
  readonly method: string;
  readonly path: string;
  readonly expectedStatus: number;
  readonly targets: Partial<Record<TargetKind, TargetSummary>>;
  /** Unexpected statuses or errors on any target. */
  readonly flagged: boolean;
}

interface Check {
  readonly pass: boolean;
  readonly text: string;
}

export interface BenchResults {
  readonly startedAt: string;
  readonly node: string;
  /** The real server's storage (absent in results written before `--postgres`: SQLite). */
  readonly database?: 'sqlite' | 'postgres';
  readonly clients: number;
  /** default: every scenario; directory: `--clients N`, the directory reads only. */
  readonly mode: 'default' | 'directory';
  readonly rounds: number;
  readonly pinning: Pinning;
  /** Whether per-scenario peaks are real (VmHWM reset before each run) or the process's peak so far. */
  readonly peakRssPerRun: boolean;
  readonly settings: LoadSettings & { readonly pipelining: 1; readonly logLevel: string };
  /** Wall-clock time of seeding the clients (before the server started), s. */
  readonly seedSeconds: number;
  readonly scenarios: ScenarioResult[];
  /** The real server's peak RSS over its whole life (setup included), MB. */
  readonly serverLifetimePeakRssMb: number | null;
  /**
   * The real server's RSS started and at rest, before its first request other than /healthz (VmRSS, MB; absent in
   * results written before issue 30).
   */
  readonly serverIdleRssMb?: number | null;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

/** The median of a metric that may be missing (off Linux): null unless every round has it. */
function medianOf(rounds: RoundSample[], metric: (r: RoundSample) => number | null): number | null {
  const values = rounds.flatMap((r) => {
    const value = metric(r);
    return value === null ? [] : [value];
  });
  return values.length === rounds.length && values.length > 0 ? median(values) : null;
}

export function summarize(rounds: RoundSample[], bodyBytes: number): TargetSummary {
  const rss = rounds.flatMap((r) => (r.peakRssMb === null ? [] : [r.peakRssMb]));
  const idle = rounds.flatMap((r) => (r.idleRssMb === null || r.idleRssMb === undefined ? [] : [r.idleRssMb]));
  return {
    requestsPerSec: median(rounds.map((r) => r.requestsPerSec)),
    latencyP50Ms: median(rounds.map((r) => r.latencyP50Ms)),
    latencyP99Ms: median(rounds.map((r) => r.latencyP99Ms)),
    cpuUsPerRequest: medianOf(rounds, (r) => r.cpuUsPerRequest),
    targetCpuPercent: medianOf(rounds, (r) => r.targetCpuPercent),
    loadCpuPercent: medianOf(rounds, (r) => r.loadCpuPercent),
    peakRssMb: rss.length > 0 ? Math.max(...rss) : null,
    idleRssMb: idle.length > 0 ? Math.max(...idle) : null,
    unexpected: rounds.reduce((sum, r) => sum + r.unexpected, 0),
    bodyBytes,
    rounds,
  };
}

const fixed = (value: number | null | undefined, digits: number) =>
  value === null || value === undefined || !Number.isFinite(value) ? '-' : value.toFixed(digits);

function table(rows: string[][]): string {
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  const line = (row: string[]) =>
    row.map((cell, column) => (column <= 1 ? cell.padEnd(widths[column]) : cell.padStart(widths[column]))).join(' | ');
  const rule = widths.map((width) => '-'.repeat(width)).join('-|-');
  return [line(rows[0]), rule, ...rows.slice(1).map(line)].join('\n');
}

/** target ÷ reference by req/s (the targets' measure) and by CPU per request (reference CPU ÷ target CPU: the same ratio on a saturated core, steadier). */
function ratios(r: ScenarioResult, reference: TargetKind) {
  const server = r.targets.server;
  const other = r.targets[reference];
  if (!server || !other) return { rps: null, cpu: null };
  const cpu = server.cpuUsPerRequest && other.cpuUsPerRequest ? other.cpuUsPerRequest / server.cpuUsPerRequest : null;
  return { rps: server.requestsPerSec / other.requestsPerSec, cpu };
}

/** Below this median CPU %, something other than the target paced the run (see `noisy`). */
const BUSY_CPU_PERCENT = 80;

/**
 * A target whose median CPU % stayed under BUSY_CPU_PERCENT was not the bottleneck of its runs: the
 * load generator was (load CPU % near 100), or the machine gave neither of them the CPU (other
 * processes, a stalled VM). Its req/s and latencies then say little; its CPU µs/req holds better.
 */
const noisy = (t: TargetSummary | undefined) =>
  t?.targetCpuPercent !== null && t?.targetCpuPercent !== undefined && t.targetCpuPercent < BUSY_CPU_PERCENT;

const P99_AT_CONNECTIONS = 50;
const RSS_LIMIT_MB = 150;
/** Issue 30: the server at rest, before its first request. */
const IDLE_RSS_LIMIT_MB = 100;
/** The 100,000-client p99 target applies from this many clients on. */
const LARGE_DIRECTORY = 100_000;

/** The targets of issues 9, 22 and 30, each as one PASS/MISS line; those that do not apply to this run are left out. */
export function evaluateTargets(results: BenchResults): Check[] {
  const checks: Check[] = [];
  const byKey = (key: ScenarioKey) => results.scenarios.find((s) => s.key === key);
  const atLeast = (r: ScenarioResult | undefined, reference: TargetKind, min: number) => {
    if (!r) return;
    const { rps } = ratios(r, reference);
    if (rps === null) return;
    const caveat = noisy(r.targets.server) || noisy(r.targets[reference]) ? ' (~: a target below 80% CPU, rerun)' : '';
    checks.push({ pass: rps >= min, text: `${r.name}: server/${reference} req/s ${fixed(rps, 2)} ≥ ${fixed(min, 2)}${caveat}` });
  };
  const p99Below = (r: ScenarioResult | undefined, maxMs: number) => {
    const server = r?.targets.server;
    if (!r || !server) return;
    if (results.settings.connections !== P99_AT_CONNECTIONS) {
      checks.push({
        pass: false,
        text: `${r.name}: p99 < ${maxMs} ms needs ${P99_AT_CONNECTIONS} connections (ran ${results.settings.connections})`,
      });
      return;
    }
    const caveat = noisy(server) ? ' (~: the server below 80% CPU, rerun)' : '';
    checks.push({
      pass: server.latencyP99Ms < maxMs,
      text: `${r.name}: server p99 ${fixed(server.latencyP99Ms, 0)} ms < ${maxMs} ms${caveat}`,
    });
  };

  /** The server's CPU µs/request at most `factor` × `referenceCpu` (another target's or scenario's). */
  const atMostTimes = (r: ScenarioResult | undefined, referenceCpu: number | null | undefined, factor: number, of: string) => {
    const cpu = r?.targets.server?.cpuUsPerRequest;
    if (!r || !cpu || !referenceCpu) return;
    checks.push({
      pass: cpu <= referenceCpu * factor,
      text: `${r.name}: server CPU ${fixed(cpu, 0)} µs/req = ${fixed(cpu / referenceCpu, 2)}× ${of}'s ${fixed(referenceCpu, 0)} ≤ ${fixed(factor, 2)}×`,
    });
  };

  const pointRead = byKey('pointRead');
  atLeast(pointRead, 'bare', 0.45);
  atLeast(pointRead, 'naive', 0.9);
  p99Below(pointRead, 10);
  atLeast(byKey('me'), 'bare', 0.6);
  const page = byKey('page');
  const deepPage = byKey('deepPage');
  atLeast(page, 'naive', 1.0);
  // Issue 46: the other families' pages too.
  atLeast(byKey('invoicePage'), 'naive', 1.0);
  atLeast(byKey('messagePage'), 'naive', 1.0);
  atLeast(byKey('filePage'), 'naive', 1.0);
  const firstCpu = page?.targets.server?.cpuUsPerRequest;
  const deepCpu = deepPage?.targets.server?.cpuUsPerRequest;
  if (deepPage && firstCpu && deepCpu) {
    const factor = deepCpu / firstCpu;
    const caveat = noisy(page?.targets.server) || noisy(deepPage.targets.server) ? ' (~: a target below 80% CPU, rerun)' : '';
    checks.push({
      pass: factor <= 1.2,
      text: `${deepPage.name}: server CPU ${fixed(deepCpu, 0)} µs/req = ${fixed(factor, 2)}× the first page's ${fixed(firstCpu, 0)} ≤ 1.20×${caveat}`,
    });
  }
  if (results.clients >= LARGE_DIRECTORY) {
    p99Below(page, 150);
    p99Below(deepPage, 150);
  }
  const insert = byKey('insert');
  atLeast(insert, 'bare', 0.15);
  // Issue 22: a creation at no more than twice the naive insert's CPU, an invoice within 1.5× of a client.
  atMostTimes(insert, insert?.targets.naive?.cpuUsPerRequest, 2, 'the naive insert');
  atMostTimes(byKey('invoiceInsert'), insert?.targets.server?.cpuUsPerRequest, 1.5, 'POST /v1/clients');
  const idle = results.serverIdleRssMb;
  if (idle !== null && idle !== undefined) {
    checks.push({
      pass: idle <= IDLE_RSS_LIMIT_MB,
      text: `the server at rest before its first request: RSS ${fixed(idle, 1)} MB ≤ ${IDLE_RSS_LIMIT_MB} MB`,
    });
  }
  for (const r of results.scenarios) {
    const peak = r.targets.server?.peakRssMb;
    if (peak === null || peak === undefined) continue;
    checks.push({ pass: peak < RSS_LIMIT_MB, text: `${r.name}: server peak RSS ${fixed(peak, 1)} MB < ${RSS_LIMIT_MB} MB` });
  }
  return checks;
}

export function formatReport(results: BenchResults, checks: Check[]): string {
  const header = [
    'scenario',
    'target',
    'req/s',
    'p50 ms',
    'p99 ms',
    'CPU µs/req',
    'CPU %',
    'load CPU %',
    'body B',
    'idle RSS MB',
    'peak RSS MB',
    'unexpected',
  ];
  const rows: string[][] = [];
  for (const r of results.scenarios) {
    let first = true;
    for (const kind of TARGET_ORDER) {
      const t = r.targets[kind];
      if (!t) continue;
      rows.push([
        first ? `${r.flagged ? '! ' : ''}${r.name}` : '',
        noisy(t) ? `${kind} ~` : kind,
        fixed(t.requestsPerSec, 0),
        fixed(t.latencyP50Ms, 0),
        fixed(t.latencyP99Ms, 0),
        fixed(t.cpuUsPerRequest, 1),
        fixed(t.targetCpuPercent, 0),
        fixed(t.loadCpuPercent, 0),
        String(t.bodyBytes),
        fixed(t.idleRssMb ?? null, 1),
        fixed(t.peakRssMb, 1),
        String(t.unexpected),
      ]);
      first = false;
    }
  }
  const ratioRows = results.scenarios.map((r) => {
    const bare = ratios(r, 'bare');
    const naive = ratios(r, 'naive');
    return [r.name, '', fixed(bare.rps, 2), fixed(bare.cpu, 2), fixed(naive.rps, 2), fixed(naive.cpu, 2)];
  });
  const ratioHeader = ['scenario', '', 'srv/bare req/s', 'srv/bare by CPU', 'srv/naive req/s', 'srv/naive by CPU'];
  const notes = results.scenarios
    .filter((r) => r.flagged)
    .flatMap((r) =>
      TARGET_ORDER.flatMap((kind) => {
        const t = r.targets[kind];
        if (!t || t.unexpected === 0) return [];
        const detail = t.rounds.map(
          (s) => `round ${s.round}: ${JSON.stringify(s.statusCounts)}, ${s.errors} errors (${s.timeouts} timeouts)`,
        );
        return [`! ${r.name}, ${kind}: expected ${r.expectedStatus}; ${detail.join('; ')}`];
      }),
    );
  const { settings } = results;
  const passed = checks.filter((c) => c.pass).length;
  return [
    `${results.clients} clients seeded in ${fixed(results.seedSeconds, 1)} s (before the server started). ${results.pinning.note}.`,
    `Medians over ${results.rounds} interleaved round(s), each metric on its own; idle RSS (before a run) and peak RSS are the largest round's.`,
    '',
    table([header, ...rows]),
    ...notes,
    ...(results.scenarios.some((r) => Object.values(r.targets).some(noisy))
      ? [
          `~ median CPU % below ${BUSY_CPU_PERCENT}: the target was not what paced its runs (the load generator if its CPU % is near 100, ` +
            'else other work on the machine): its req/s and latencies are not to be trusted, nor its CPU µs/req when few requests were served; rerun on a quiet machine.',
        ]
      : []),
    '',
    'Ratios (from the medians): req/s ratio = server req/s ÷ reference req/s; "by CPU" = reference CPU µs/req ÷ server CPU µs/req,',
    'the throughput ratio one saturated core would give (steadier than req/s on a busy machine).',
    table([ratioHeader, ...ratioRows]),
    '',
    `Targets (issues 9, 22 and 30): ${passed} PASS, ${checks.length - passed} MISS`,
    ...checks.map((c) => `${c.pass ? 'PASS' : 'MISS'}  ${c.text}`),
    ...(results.clients < LARGE_DIRECTORY ? ['(the 100,000-client p99 target is checked by `npm run bench -- --clients 100000`)'] : []),
    '',
    `Latencies in ms (autocannon's histogram has 1 ms resolution). ${settings.connections} connections, pipelining 1, ` +
      `${settings.warmupSeconds} s warm-up + ${settings.seconds} s measured per target and round. Every server at LOG_LEVEL=${settings.logLevel}.`,
    'CPU µs/req: user + system time of the target process over the measured run (/proc/<pid>/stat, 10 ms ticks) ÷ responses. ' +
      'CPU %: that time ÷ the run’s wall-clock time (about 100 when the pinned target was the bottleneck); load CPU %: the same for the ' +
      'load generator (near 100: it set the pace, so the target’s req/s is capped there while its CPU µs/req still holds).',
    `Peak RSS: VmHWM ${results.peakRssPerRun ? 'reset before each run, so each figure is that run’s own peak' : 'of the process so far (reset unavailable)'}; ` +
      `the real server's peak over its whole life, setup included: ${fixed(results.serverLifetimePeakRssMb, 1)} MB; ` +
      `at rest after start, before its first request: ${fixed(results.serverIdleRssMb ?? null, 1)} MB. Idle RSS: VmRSS just before a run.`,
  ].join('\n');
}
