// The benchmark's regression guard (issue 22): a scenario whose server CPU per request grew by more than
// the threshold is named, one that grew less or got cheaper is not, and a scenario in one result only is
// listed without a verdict; a PostgreSQL run is never compared with a SQLite one.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compare } from '../bench/compare.js';
import type { BenchResults } from '../bench/report.js';

function results(costs: Record<string, number>, database?: 'sqlite' | 'postgres'): BenchResults {
  const scenarios = Object.entries(costs).map(([key, cpu]) => ({
    key,
    name: `scenario ${key}`,
    targets: { server: { cpuUsPerRequest: cpu } },
  }));
  return { scenarios, ...(database ? { database } : {}) } as unknown as BenchResults;
}

test('compare names the scenarios whose server CPU per request grew past the threshold, and only those', () => {
  const { rows, grown } = compare(
    results({ me: 20, insert: 200, page: 1000, old: 5 }),
    results({ me: 24.1, insert: 239, page: 700, added: 9 }),
    20,
  );
  assert.deepEqual(grown, ['scenario me']);
  assert.deepEqual(rows, [
    { name: 'scenario me', before: 20, after: 24.1 },
    { name: 'scenario insert', before: 200, after: 239 },
    { name: 'scenario page', before: 1000, after: 700 },
    { name: 'scenario old', before: 5, after: null },
    { name: 'scenario added', before: null, after: 9 },
  ]);
});

test('compare refuses results of two databases; a result without one is a SQLite run', () => {
  assert.throws(() => compare(results({ me: 20 }), results({ me: 20 }, 'postgres'), 20), {
    message: 'the results ran on different databases (sqlite, postgres): nothing to compare',
  });
  assert.deepEqual(compare(results({ me: 20 }), results({ me: 21 }, 'sqlite'), 20).grown, []);
});
