import { executionAsyncResource } from 'node:async_hooks';

/** The one entry of `process.nextTick`'s queue kept for the process's life (keepTickEntryShape). */
const kept: object[] = [];

/**
 * Keeps one entry of `process.nextTick`'s queue alive, so that V8 keeps the hidden classes its object literal
 * builds. It holds them only weakly: a full collection that finds no entry alive (the queue is empty between two
 * requests) drops them, the literal's inline cache then meets a new class and turns megamorphic for good, and every
 * `nextTick` inlined into Node's streams builds its entry through a runtime call, some 2.6 µs of a point read's 74
 * (bench/README.md, 2026-11-30, the tick entry's classes). An entry's class holds the classes before it.
 */
export function keepTickEntryShape(): void {
  process.nextTick(() => kept.push(executionAsyncResource()));
}

/** The entry kept, once the tick has run (for its test). */
export const keptTickEntry = (): object | undefined => kept[0];
