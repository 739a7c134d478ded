// The printed table and the shape of bench/results/latest.json.
import type { Memory } from './children.js';
import type { LoadSettings, RunStats } from './load.js';

export interface TargetResult extends RunStats {
  /** Size of one sampled response body, in bytes. */
  readonly bodyBytes: number;
  /** Memory after the scenario (null off Linux). */
  readonly memory: Memory | null;
}

export interface ScenarioResult {
  readonly name: string;
  readonly method: string;
  readonly path: string;
  readonly expectedStatus: number;
  readonly baseline: TargetResult;
  readonly server: TargetResult;
  /** server req/s ÷ baseline req/s. */
  readonly ratio: number;
  /** Unexpected statuses or errors on either side. */
  readonly flagged: boolean;
}

export interface BenchResults {
  readonly startedAt: string;
  readonly node: string;
  readonly settings: LoadSettings & { readonly pipelining: 1; readonly logLevel: string };
  readonly scenarios: ScenarioResult[];
  readonly peakRssMb: { readonly server: number | null; readonly baseline: number | null };
}

const fixed = (value: number, digits: number) => (Number.isFinite(value) ? value.toFixed(digits) : '-');
const mb = (memory: Memory | null) => (memory ? fixed(memory.rssMb, 1) : '-');
const statuses = (stats: RunStats) => `${JSON.stringify(stats.statusCounts)}, ${stats.errors} errors (${stats.timeouts} timeouts)`;

function table(rows: string[][]): string {
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  const line = (row: string[]) =>
    row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]) : cell.padStart(widths[column]))).join(' | ');
  const rule = widths.map((width) => '-'.repeat(width)).join('-|-');
  return [line(rows[0]), rule, ...rows.slice(1).map(line)].join('\n');
}

export function formatReport(results: BenchResults): string {
  const header = [
    'scenario',
    'base req/s',
    'srv req/s',
    'srv/base',
    'base p50',
    'base p99',
    'srv p50',
    'srv p99',
    'unexpected b/s',
    'srv RSS MB',
    'base RSS MB',
  ];
  const rows = results.scenarios.map((r) => [
    `${r.flagged ? '! ' : ''}${r.name}`,
    fixed(r.baseline.requestsPerSec, 0),
    fixed(r.server.requestsPerSec, 0),
    fixed(r.ratio, 2),
    fixed(r.baseline.latencyP50Ms, 0),
    fixed(r.baseline.latencyP99Ms, 0),
    fixed(r.server.latencyP50Ms, 0),
    fixed(r.server.latencyP99Ms, 0),
    `${r.baseline.unexpected}/${r.server.unexpected}`,
    mb(r.server.memory),
    mb(r.baseline.memory),
  ]);
  const { settings, peakRssMb } = results;
  const notes = results.scenarios
    .filter((r) => r.flagged)
    .map((r) => `! ${r.name}: expected ${r.expectedStatus}; baseline ${statuses(r.baseline)}; server ${statuses(r.server)}`);
  const peak = (value: number | null) => (value === null ? 'n/a' : `${fixed(value, 1)} MB`);
  return [
    table([header, ...rows]),
    ...notes,
    `Latencies in ms (autocannon's histogram has 1 ms resolution). ${settings.connections} connections, pipelining 1, ${settings.warmupSeconds} s warm-up + ${settings.seconds} s measured per target, ` +
      `autocannon in the bench process on 127.0.0.1. Both servers at LOG_LEVEL=${settings.logLevel}: no per-request logging.`,
    `Peak RSS (VmHWM): server ${peak(peakRssMb.server)}, baseline ${peak(peakRssMb.baseline)} (largest of the per-scenario baseline processes).`,
  ].join('\n');
}
