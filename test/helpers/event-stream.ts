// Server-sent events in tests: a reader over a real socket (node:http), as a browser's EventSource reads them, and a
// way for the walks over every operation (app.inject) to read a stream's head without waiting for an end that never
// comes.
import assert from 'node:assert/strict';
import { type IncomingHttpHeaders, request } from 'node:http';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';

export interface ServerSentEvent {
  id: string | undefined;
  event: string;
  data: string;
}

export interface EventReader {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  /** Every event so far, in order (comments and `retry:` aside). */
  readonly events: ServerSentEvent[];
  /** Comment lines so far (`: heartbeat`), without the colon and its space. */
  readonly comments: string[];
  /** The `retry:` values so far. */
  readonly retries: number[];
  /** The whole body, once the server has ended it (an error's JSON; a stream's text). */
  readonly ended: Promise<string>;
  /** Whether the answer has ended. */
  readonly isOver: boolean;
  /** The next event not yet taken, waiting at most `limitMs` for it. */
  next(what: string, limitMs?: number): Promise<ServerSentEvent>;
  /** The next `message.created` not yet taken (other events skipped), parsed. */
  nextMessage(what: string, limitMs?: number): Promise<{ id: string | undefined; message: Record<string, unknown> }>;
  /** The client goes away (the socket is destroyed). */
  close(): void;
}

/** Bounded: every wait of a stream test is (an event the server never sends fails the test, not the runner). */
const WAIT_MS = 10_000;

/**
 * GET `path` on a listening server, read as EventSource reads it (SSE's field rules: `data` lines joined by line
 * feeds, `id`, `event`, `retry`, comments). Resolves once the answer's head has arrived.
 */
export function openEventStream(base: string, path: string, headers: Record<string, string>): Promise<EventReader> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, base), { headers: { accept: 'text/event-stream', ...headers } }, (res) => {
      const events: ServerSentEvent[] = [];
      const comments: string[] = [];
      const retries: number[] = [];
      let taken = 0;
      let wake: (() => void) | undefined;
      let text = '';
      let pending = '';
      let block: { id?: string; event?: string; data: string[] } = { data: [] };
      res.setEncoding('utf8');
      const line = (raw: string) => {
        if (raw === '') {
          if (block.data.length > 0) events.push({ id: block.id, event: block.event ?? 'message', data: block.data.join('\n') });
          block = { data: [] };
          return;
        }
        if (raw.startsWith(':')) return void comments.push(raw.slice(1).trimStart());
        const colon = raw.indexOf(':');
        const field = colon < 0 ? raw : raw.slice(0, colon);
        const value = colon < 0 ? '' : raw.slice(colon + 1).replace(/^ /, '');
        if (field === 'data') block.data.push(value);
        else if (field === 'id') block.id = value;
        else if (field === 'event') block.event = value;
        else if (field === 'retry') retries.push(Number(value));
      };
      let over = false;
      const ended = new Promise<string>((done) => {
        res.on('data', (chunk: string) => {
          text += chunk;
          pending += chunk;
          const lines = pending.split(/\r\n|\r|\n/);
          pending = lines.pop() ?? '';
          for (const raw of lines) line(raw);
          wake?.();
        });
        const end = () => {
          over = true;
          wake?.();
          done(text);
        };
        res.on('end', end);
        res.on('close', end);
      });
      const next = async (what: string, limitMs = WAIT_MS): Promise<ServerSentEvent> => {
        const deadline = Date.now() + limitMs;
        while (taken >= events.length) {
          assert.ok(!over, `${what}: the stream ended before it came (${JSON.stringify(events.slice(taken))})`);
          const left = deadline - Date.now();
          assert.ok(left > 0, `${what}: nothing came within ${limitMs} ms`);
          await new Promise<void>((woken) => {
            const timer = setTimeout(woken, left);
            wake = () => {
              clearTimeout(timer);
              woken();
            };
          });
          wake = undefined;
        }
        return events[taken++];
      };
      resolve({
        get isOver() {
          return over;
        },
        status: res.statusCode ?? 0,
        headers: res.headers,
        events,
        comments,
        retries,
        ended,
        next,
        async nextMessage(what, limitMs = WAIT_MS) {
          for (;;) {
            const event = await next(what, limitMs);
            if (event.event === 'message.created') return { id: event.id, message: JSON.parse(event.data) };
          }
        },
        close: () => req.destroy(),
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/** The base URL of an app listening on a port of its own (127.0.0.1, port 0). */
export async function listening(app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  assert.ok(address && typeof address === 'object');
  return `http://127.0.0.1:${address.port}`;
}

/** Whether a request is for an event stream (its answer never ends by itself): GET /v1/messages/stream, any way it is reached. */
export const isEventStreamUrl = (url: string): boolean => /^(\/portal\/[^/]+)?\/v1\/messages\/stream(\?|$)/.test(url);

/**
 * app.inject for the walks over every operation: an event stream's answer is read up to its first event (a 200) or
 * whole (an error), then the client goes away, so that a walk sees its status, headers and head as it sees any other
 * answer. Any other request is app.inject's.
 */
export async function injectOrStream(app: FastifyInstance, options: InjectOptions): Promise<LightMyRequestResponse> {
  if (!isEventStreamUrl(String(options.url))) return app.inject(options);
  const res = await app.inject({ ...options, payloadAsStream: true });
  const stream = res.stream();
  let body = '';
  const streaming = String(res.headers['content-type'] ?? '').startsWith('text/event-stream');
  const read = new Promise<void>((done) => {
    stream.on('data', (chunk: Buffer) => {
      body += chunk.toString('utf8');
      // The head: the retry hint and the first event (`ready`), each ended by a blank line.
      if (streaming && /\n\n[\s\S]*\n\n/.test(body)) done();
    });
    stream.on('end', done);
    stream.on('error', done);
  });
  const timeout = setTimeout(() => stream.destroy(), WAIT_MS);
  await read;
  clearTimeout(timeout);
  // The client goes: the server's stream closes and frees its place.
  (res.raw.res as unknown as { destroy(): void }).destroy();
  const head = streaming ? body.slice(0, body.indexOf('\n\n', body.indexOf('\n\n') + 2) + 2) : body;
  return Object.assign(res, {
    body: head,
    payload: head,
    rawPayload: Buffer.from(head),
    json: () => JSON.parse(head),
  }) as LightMyRequestResponse;
}
