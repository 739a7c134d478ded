import assert from 'node:assert/strict';
import { test } from 'node:test';
import { keepTickEntryShape, keptTickEntry } from './tick-entry.js';

test('keepTickEntryShape keeps a nextTick queue entry (with its callback) once the tick has run', async () => {
  assert.equal(keptTickEntry(), undefined);
  keepTickEntryShape();
  await new Promise<void>((resolve) => setImmediate(resolve));
  const entry = keptTickEntry() as { callback?: unknown } | undefined;
  assert.equal(typeof entry?.callback, 'function');
});
