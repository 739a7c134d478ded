import assert from 'node:assert/strict';
import { test } from 'node:test';
import { periodStart } from './periods.js';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();

test('periods: a start on the 31st falls on the last day of shorter months and returns to the 31st (no 29 February drift)', () => {
  const start = at('2028-01-31T09:30:00.000Z');
  assert.deepEqual(
    [0, 1, 2, 3, 4, 12, 13].map((k) => iso(periodStart(start, 'month', 1, k))),
    [
      '2028-01-31T09:30:00.000Z',
      '2028-02-29T09:30:00.000Z',
      '2028-03-31T09:30:00.000Z',
      '2028-04-30T09:30:00.000Z',
      '2028-05-31T09:30:00.000Z',
      '2029-01-31T09:30:00.000Z',
      '2029-02-28T09:30:00.000Z',
    ],
  );
  const leap = at('2028-02-29T00:00:00.000Z');
  assert.deepEqual(
    [1, 4].map((k) => iso(periodStart(leap, 'yearly', 1, k))),
    ['2029-02-28T00:00:00.000Z', '2032-02-29T00:00:00.000Z'],
  );
  assert.equal(iso(periodStart(start, 'quarterly', 1, 1)), '2028-04-30T09:30:00.000Z');
  assert.equal(iso(periodStart(start, 'month', 2, 1)), '2028-03-31T09:30:00.000Z', 'every two months');
  assert.equal(iso(periodStart(start, 'week', 2, 3)), '2028-03-13T09:30:00.000Z');
  assert.equal(iso(periodStart(start, 'day', 1, 366)), '2029-01-31T09:30:00.000Z');
});
