// The benchmark's regression guard (issue 22): a scenario whose server CPU per request grew by more than
// the threshold is named, one that grew less or got cheaper is not, and a scenario in one result only is
// listed without a verdict; a PostgreSQL run is never compared with a SQLite one. Its memory guard (issue 30):
// a scenario whose server peak RSS grew by more than 10 % is named, and so is the server's RSS at rest.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compare } from '../bench/compare.js';
import type { BenchResults } from '../bench/report.js';

/** Results with each scenario's server CPU µs/request (and its bare route's, when given as [server, bare]). */
function results(costs: Record<string, number | [number, number]>, database?: 'sqlite' | 'postgres'): BenchResults {
  const scenarios = Object.entries(costs).map(([key, cost]) => {
    const [server, bare] = typeof cost === 'number' ? [cost, undefined] : cost;
    return {
      key,
      name: `scenario ${key}`,
      targets: { server: { cpuUsPerRequest: server }, ...(bare === undefined ? {} : { bare: { cpuUsPerRequest: bare } }) },
    };
  });
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
    { name: 'scenario me', before: 20, after: 24.1, overBare: null, peakBefore: null, peakAfter: null },
    { name: 'scenario insert', before: 200, after: 239, overBare: null, peakBefore: null, peakAfter: null },
    { name: 'scenario page', before: 1000, after: 700, overBare: null, peakBefore: null, peakAfter: null },
    { name: 'scenario old', before: 5, after: null, overBare: null, peakBefore: null, peakAfter: null },
    { name: 'scenario added', before: null, after: 9, overBare: null, peakBefore: null, peakAfter: null },
  ]);
});

test('compare refuses results of two databases; a result without one is a SQLite run', () => {
  assert.throws(() => compare(results({ me: 20 }), results({ me: 20 }, 'postgres'), 20), {
    message: 'the results ran on different databases (sqlite, postgres): nothing to compare',
  });
  assert.deepEqual(compare(results({ me: 20 }), results({ me: 21 }, 'sqlite'), 20).grown, []);
});

test('with bare routes in both runs, the verdict is on the server over its bare route: a slower machine is not a regression', () => {
  // Every bare route 50 % dearer and the server 40 % (a slower machine): not named. The server 40 % dearer
  // over an unchanged bare route: named.
  const { rows, grown } = compare(results({ me: [20, 10], point: [60, 20] }), results({ me: [28, 15], point: [84, 20] }), 20);
  assert.deepEqual(grown, ['scenario point']);
  assert.equal(rows[0].overBare?.toFixed(3), (28 / 15 / 2).toFixed(3));
  assert.equal(rows[1].overBare?.toFixed(3), '1.400');
});

/** Results whose scenarios have the server's peak RSS (MB) and the same CPU; `idle`: its RSS at rest after start. */
function withRss(peaks: Record<string, number>, idle?: number): BenchResults {
  const scenarios = Object.entries(peaks).map(([key, peakRssMb]) => ({
    key,
    name: `scenario ${key}`,
    targets: { server: { cpuUsPerRequest: 50, peakRssMb } },
  }));
  return { scenarios, ...(idle === undefined ? {} : { serverIdleRssMb: idle }) } as unknown as BenchResults;
}

test('compare names the scenarios whose server peak RSS grew by more than 10 %, and the RSS at rest', () => {
  const { rows, grown, grownRss } = compare(
    withRss({ me: 120, page: 140, insert: 150 }, 90),
    withRss({ me: 132.1, page: 154, insert: 120 }, 99.1),
    20,
  );
  assert.deepEqual(grown, [], 'the CPU did not change');
  assert.deepEqual(grownRss, ['the server at rest after start', 'scenario me']);
  assert.deepEqual(
    rows.map((r) => [r.peakBefore, r.peakAfter]),
    [
      [120, 132.1],
      [140, 154],
      [150, 120],
    ],
  );
});

test('the RSS threshold is a parameter; results without RSS (off Linux, or before issue 30) are not judged on it', () => {
  assert.deepEqual(compare(withRss({ me: 100 }, 80), withRss({ me: 119 }, 95), 20, 20).grownRss, []);
  assert.deepEqual(compare(withRss({ me: 100 }, 80), withRss({ me: 121 }, 97), 20, 20).grownRss, [
    'the server at rest after start',
    'scenario me',
  ]);
  assert.deepEqual(compare(results({ me: 20 }), withRss({ me: 500 }, 400), 20).grownRss, []);
});
