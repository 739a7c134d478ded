// `npm run bench:compare -- <before.json> <after.json> [--threshold 20]`: the real server's CPU µs per
// request in two results of `npm run bench` (bench/results/latest.json, kept under another name), scenario
// by scenario; names every scenario whose cost grew by more than the threshold (percent) and then exits 1.
// Scenarios in only one of the two are listed as such; results of two databases are not compared. Run it
// before and after a change to the write or read path (bench/README.md).
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { BenchResults } from './report.js';

const USAGE = 'usage: npm run bench:compare -- <before.json> <after.json> [--threshold PERCENT (20)]';

interface Row {
  readonly name: string;
  readonly before: number | null;
  readonly after: number | null;
}

/** The server's median CPU µs/request of each scenario, by key (a scenario's name carries its client count). */
function serverCost(results: BenchResults): Map<string, { name: string; cpu: number | null }> {
  return new Map(results.scenarios.map((s) => [s.key, { name: s.name, cpu: s.targets.server?.cpuUsPerRequest ?? null }]));
}

/** Results written before `--postgres` have no database: they were SQLite runs. */
const databaseOf = (results: BenchResults) => results.database ?? 'sqlite';

export function compare(before: BenchResults, after: BenchResults, thresholdPercent: number): { rows: Row[]; grown: string[] } {
  if (databaseOf(before) !== databaseOf(after)) {
    throw new Error(`the results ran on different databases (${databaseOf(before)}, ${databaseOf(after)}): nothing to compare`);
  }
  const was = serverCost(before);
  const now = serverCost(after);
  const rows: Row[] = [];
  const grown: string[] = [];
  for (const key of new Set([...was.keys(), ...now.keys()])) {
    const b = was.get(key);
    const a = now.get(key);
    const row = { name: (a ?? b)?.name ?? key, before: b?.cpu ?? null, after: a?.cpu ?? null };
    rows.push(row);
    if (row.before !== null && row.after !== null && row.after > row.before * (1 + thresholdPercent / 100)) grown.push(row.name);
  }
  return { rows, grown };
}

function main(argv: string[]): number {
  let parsed: ReturnType<typeof parseArgs<{ options: { threshold: { type: 'string' } }; allowPositionals: true }>>;
  try {
    parsed = parseArgs({ args: argv, options: { threshold: { type: 'string' } }, allowPositionals: true });
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const threshold = parsed.values.threshold === undefined ? 20 : Number(parsed.values.threshold);
  if (parsed.positionals.length !== 2 || !Number.isFinite(threshold) || threshold < 0) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  const [before, after] = parsed.positionals.map((file) => JSON.parse(readFileSync(file, 'utf8')) as BenchResults);
  let compared: ReturnType<typeof compare>;
  try {
    compared = compare(before, after, threshold);
  } catch (error) {
    process.stderr.write(`bench:compare: ${(error as Error).message}\n`);
    return 2;
  }
  const { rows, grown } = compared;
  const width = Math.max(...rows.map((r) => r.name.length));
  const cell = (value: number | null) => (value === null ? '-' : value.toFixed(1)).padStart(8);
  process.stdout.write(`${'scenario'.padEnd(width)} | before µs | after µs | change\n`);
  for (const { name, before: b, after: a } of rows) {
    const change = b !== null && a !== null ? `${a >= b ? '+' : ''}${(((a - b) / b) * 100).toFixed(0)} %` : 'in one result only';
    process.stdout.write(`${name.padEnd(width)} |  ${cell(b)} | ${cell(a)} | ${change}\n`);
  }
  if (grown.length === 0) {
    process.stdout.write(`\nno scenario's server CPU per request grew by more than ${threshold} %\n`);
    return 0;
  }
  process.stdout.write(`\ngrew by more than ${threshold} %: ${grown.join('; ')}\n`);
  return 1;
}

if (import.meta.url === `file://${process.argv[1]}`) process.exitCode = main(process.argv.slice(2));
