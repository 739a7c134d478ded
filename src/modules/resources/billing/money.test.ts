import assert from 'node:assert/strict';
import { test } from 'node:test';
import { lineTotal, scaled, taxOf } from './money.js';

test('money: decimals read exactly; a line is amount × quantity rounded half up to a cent; tax likewise', () => {
  assert.equal(scaled(1.5, 4), 15000n);
  assert.equal(scaled(0.0001, 4), 1n);
  assert.equal(scaled(0.00001, 4), null, 'a fifth decimal');
  assert.equal(scaled(8.25, 3), 8250n);
  assert.equal(scaled(-1, 3), null);
  assert.equal(lineTotal(1000, 3), 3000);
  assert.equal(lineTotal(1999, 1.5), 2999, '2998.5 rounds up');
  assert.equal(lineTotal(333, 0.5), 167, '166.5 rounds up');
  assert.equal(lineTotal(1, 0.4999), 0);
  assert.equal(lineTotal(1, 0.5), 1, 'half a cent rounds up');
  assert.equal(lineTotal(10, 0.1), 1, 'no 0.1 binary drift');
  assert.equal(lineTotal(1010, 0.3), 303);
  assert.equal(taxOf(10000, 8.25), 825);
  assert.equal(taxOf(2999, 10), 300, '299.9 → 300');
  assert.equal(taxOf(5, 10), 1, '0.5 cent rounds up');
  assert.equal(taxOf(4, 10), 0);
  assert.equal(taxOf(12345, 0), 0);
  assert.equal(taxOf(12345, 100), 12345);
  assert.equal(taxOf(1, 12.345), 0, '0.12345 cent');
  assert.equal(taxOf(100, 0.5), 1, '0.5 cent rounds up');
});
