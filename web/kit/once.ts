// The Idempotency-Key of a create or a payment made from a page, shared by both front ends: a request sent again
// without an answer keeps its key, so the server acts on it once.
import { useRef } from 'preact/hooks';
import { ApiError } from './api.js';

/** A random Idempotency-Key (crypto.getRandomValues: randomUUID needs a secure context, a plain-HTTP server is not one). */
export function newKey(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/**
 * The Idempotency-Key of a request that must happen at most once (a payment, a card put on file): the same request
 * sent again after it got no answer (the network failed, or the first is still running) keeps its key, so the server
 * answers it once; any other request, or the same after an answer (a decline: another try is a new attempt), a new one.
 */
export function useOnceKey() {
  const last = useRef<{ request: string; key: string } | null>(null);
  return {
    keyFor(request: string): string {
      if (last.current?.request !== request) last.current = { request, key: newKey() };
      return last.current.key;
    },
    answered(error: unknown) {
      const unanswered = error instanceof ApiError && (error.status === 0 || error.code === 'idempotency_key_in_use');
      if (!unanswered) last.current = null;
    },
  };
}

/** Runs a request under its once-key, forgetting the key once it was answered. */
export async function once<T>(key: ReturnType<typeof useOnceKey>, request: string, send: (key: string) => Promise<T>): Promise<T> {
  try {
    const answer = await send(key.keyFor(request));
    key.answered(null);
    return answer;
  } catch (error) {
    key.answered(error);
    throw error;
  }
}
