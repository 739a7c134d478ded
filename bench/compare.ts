// `npm run bench:compare -- <before.json> <after.json> [--threshold 20] [--rss-threshold 10]`: the real server's
// CPU µs per request and its peak RSS in two results of `npm run bench` (bench/results/latest.json, kept under
// another name), scenario by scenario; names every scenario whose cost grew by more than the threshold (percent),
// or whose peak RSS grew by more than the RSS threshold, and then exits 1. The server's RSS at rest after start is
// held to the RSS threshold too.
// Where both runs measured the scenario's bare route, the verdict is on the server's cost over the bare
// route's: a machine slower as a whole on one day (every bare route dearer) is not a regression.
// Scenarios in only one of the two are listed as such; results of two databases are not compared. Run it
// before and after a change to the write or read path (bench/README.md).
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { BenchResults } from './report.js';

const USAGE = 'usage: npm run bench:compare -- <before.json> <after.json> [--threshold PERCENT (20)] [--rss-threshold PERCENT (10)]';

interface Row {
  readonly name: string;
  readonly before: number | null;
  readonly after: number | null;
  /** The server's CPU over the bare route's, after ÷ before, when both runs have both. */
  readonly overBare: number | null;
  /** The server's peak RSS in each result, MB. */
  readonly peakBefore: number | null;
  readonly peakAfter: number | null;
}

interface Cost {
  readonly name: string;
  readonly cpu: number | null;
  readonly bare: number | null;
  readonly peakRss: number | null;
}

/** The server's and the bare route's median CPU µs/request of each scenario, by key (a name carries its client count). */
function costs(results: BenchResults): Map<string, Cost> {
  return new Map(
    results.scenarios.map((s) => [
      s.key,
      {
        name: s.name,
        cpu: s.targets.server?.cpuUsPerRequest ?? null,
        bare: s.targets.bare?.cpuUsPerRequest ?? null,
        peakRss: s.targets.server?.peakRssMb ?? null,
      },
    ]),
  );
}

const relative = (c: Cost | undefined) => (c?.cpu && c.bare ? c.cpu / c.bare : null);

/** Results written before `--postgres` have no database: they were SQLite runs. */
const databaseOf = (results: BenchResults) => results.database ?? 'sqlite';

const grewPast = (before: number | null | undefined, after: number | null | undefined, limit: number) =>
  typeof before === 'number' && typeof after === 'number' && before > 0 && after / before > limit;

/** What grew: CPU per request past `thresholdPercent`, peak RSS (and the RSS at rest) past `rssThresholdPercent`. */
export function compare(
  before: BenchResults,
  after: BenchResults,
  thresholdPercent: number,
  rssThresholdPercent = 10,
): { rows: Row[]; grown: string[]; grownRss: string[] } {
  if (databaseOf(before) !== databaseOf(after)) {
    throw new Error(`the results ran on different databases (${databaseOf(before)}, ${databaseOf(after)}): nothing to compare`);
  }
  const was = costs(before);
  const now = costs(after);
  const rows: Row[] = [];
  const grown: string[] = [];
  const grownRss: string[] = [];
  const limit = 1 + thresholdPercent / 100;
  const rssLimit = 1 + rssThresholdPercent / 100;
  if (grewPast(before.serverIdleRssMb, after.serverIdleRssMb, rssLimit)) grownRss.push('the server at rest after start');
  for (const key of new Set([...was.keys(), ...now.keys()])) {
    const b = was.get(key);
    const a = now.get(key);
    const relativeBefore = relative(b);
    const relativeAfter = relative(a);
    const overBare = relativeBefore && relativeAfter ? relativeAfter / relativeBefore : null;
    const row = {
      name: (a ?? b)?.name ?? key,
      before: b?.cpu ?? null,
      after: a?.cpu ?? null,
      overBare,
      peakBefore: b?.peakRss ?? null,
      peakAfter: a?.peakRss ?? null,
    };
    rows.push(row);
    const growth = overBare ?? (row.before !== null && row.after !== null ? row.after / row.before : null);
    if (growth !== null && growth > limit) grown.push(row.name);
    if (grewPast(row.peakBefore, row.peakAfter, rssLimit)) grownRss.push(row.name);
  }
  return { rows, grown, grownRss };
}

function main(argv: string[]): number {
  const options = { threshold: { type: 'string' }, 'rss-threshold': { type: 'string' } } as const;
  let parsed: ReturnType<typeof parseArgs<{ options: typeof options; allowPositionals: true }>>;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true });
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const threshold = parsed.values.threshold === undefined ? 20 : Number(parsed.values.threshold);
  const rssThreshold = parsed.values['rss-threshold'] === undefined ? 10 : Number(parsed.values['rss-threshold']);
  const valid = (percent: number) => Number.isFinite(percent) && percent >= 0;
  if (parsed.positionals.length !== 2 || !valid(threshold) || !valid(rssThreshold)) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  const [before, after] = parsed.positionals.map((file) => JSON.parse(readFileSync(file, 'utf8')) as BenchResults);
  let compared: ReturnType<typeof compare>;
  try {
    compared = compare(before, after, threshold, rssThreshold);
  } catch (error) {
    process.stderr.write(`bench:compare: ${(error as Error).message}\n`);
    return 2;
  }
  const { rows, grown, grownRss } = compared;
  const width = Math.max(...rows.map((r) => r.name.length));
  const cell = (value: number | null) => (value === null ? '-' : value.toFixed(1)).padStart(8);
  const percent = (ratio: number) => `${ratio >= 1 ? '+' : ''}${((ratio - 1) * 100).toFixed(0)} %`;
  process.stdout.write(
    `${'scenario'.padEnd(width)} | before µs | after µs | change | change ÷ bare route's | peak RSS MB before | after | change\n`,
  );
  for (const { name, before: b, after: a, overBare, peakBefore, peakAfter } of rows) {
    const change = b !== null && a !== null ? percent(a / b) : 'in one result only';
    const relativeChange = overBare === null ? '-' : percent(overBare);
    const rssChange = peakBefore && peakAfter ? percent(peakAfter / peakBefore) : '-';
    process.stdout.write(
      `${name.padEnd(width)} |  ${cell(b)} | ${cell(a)} | ${change.padStart(6)} | ${relativeChange.padEnd(21)} |          ${cell(peakBefore)} | ${cell(peakAfter)} | ${rssChange}\n`,
    );
  }
  const idleBefore = before.serverIdleRssMb ?? null;
  const idleAfter = after.serverIdleRssMb ?? null;
  process.stdout.write(`\nthe server at rest after start: RSS ${cell(idleBefore).trim()} → ${cell(idleAfter).trim()} MB\n`);
  if (grown.length === 0) {
    process.stdout.write(`no scenario's server CPU per request (over its bare route's where measured) grew by more than ${threshold} %\n`);
  } else {
    process.stdout.write(`grew by more than ${threshold} % (over the bare route's where measured): ${grown.join('; ')}\n`);
  }
  if (grownRss.length === 0) process.stdout.write(`no server's peak RSS (nor its RSS at rest) grew by more than ${rssThreshold} %\n`);
  else process.stdout.write(`RSS grew by more than ${rssThreshold} %: ${grownRss.join('; ')}\n`);
  return grown.length === 0 && grownRss.length === 0 ? 0 : 1;
}

// The command itself (`npm run bench:compare`), not a test importing it (the tests run bundled, as their own file).
if (import.meta.url.endsWith('/bench/compare.ts') && import.meta.url === `file://${process.argv[1]}`) {
  process.exitCode = main(process.argv.slice(2));
}
