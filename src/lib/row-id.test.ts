import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isUuid } from './formats.js';
import { newRowId } from './row-id.js';

test('newRowId: a UUID of version 4 and variant 1, whose first 48 bits are the time in milliseconds', () => {
  const at = Date.UTC(2026, 10, 30, 15, 0, 0, 123);
  const id = newRowId(at);
  assert.equal(isUuid(id), true);
  assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.equal(Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16), at);
});

test('newRowId: an id made a millisecond later sorts after, as text; two made in the same millisecond differ', () => {
  const at = Date.UTC(2026, 10, 30, 15, 0, 0, 999);
  const ids = Array.from({ length: 100 }, (_, i) => newRowId(at + (i % 2)));
  const first = ids.filter((_, i) => i % 2 === 0);
  const second = ids.filter((_, i) => i % 2 === 1);
  for (const a of first) for (const b of second) assert.ok(a < b, `${a} < ${b}`);
  assert.equal(new Set(ids).size, 100);
});

test('newRowId: the time now by default', () => {
  const before = Date.now();
  const id = newRowId();
  const after = Date.now();
  const at = Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
  assert.ok(at >= before && at <= after, `${before} <= ${at} <= ${after}`);
});
