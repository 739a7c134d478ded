import { Readable } from 'node:stream';
import { errors } from './errors.js';

/** How the server's event streams behave (server-sent events: GET /v1/messages/stream). */
export interface StreamSettings {
  /** Streams one caller may hold open on one server process; the next is a 429. */
  readonly perCaller: number;
  /** A comment line this often, so that a quiet stream is not closed as idle (by a proxy, or the socket's own timeout). */
  readonly heartbeatMs: number;
  /**
   * A stream ends after this long and the client reconnects (EventSource does by itself, with Last-Event-ID): its
   * credential and what it may see are then checked again, as on any request.
   */
  readonly lifetimeMs: number;
  /** The reconnection delay a stream asks of EventSource (its `retry:` field). */
  readonly retryMs: number;
}

export const STREAM_SETTINGS: StreamSettings = { perCaller: 5, heartbeatMs: 15_000, lifetimeMs: 5 * 60_000, retryMs: 2_000 };

/** What a stream keeps unsent before `drained` makes its writer wait (a slow reader: the socket's buffer is full). */
const HIGH_WATER_BYTES = 64 * 1024;

/**
 * One open stream of server-sent events: `body` is the response's body (Fastify pipes it; when the client goes, the
 * body is destroyed and the stream closes). It starts with its `retry:` hint, sends a heartbeat comment while open,
 * and ends by itself after its lifetime; `close` ends it at once (the server's shutdown).
 */
export class EventStream {
  readonly body: Readable;
  private readonly timers: NodeJS.Timeout[];
  private readonly closeHandlers: (() => void)[] = [];
  private waiting: (() => void)[] = [];
  private ended = false;

  constructor(settings: StreamSettings, onEnd: () => void) {
    this.body = new Readable({ read: () => this.release(), highWaterMark: HIGH_WATER_BYTES });
    this.body.once('close', () => this.finish());
    this.closeHandlers.push(onEnd);
    this.write(`retry: ${settings.retryMs}\n\n`);
    const heartbeat = setInterval(() => this.write(': heartbeat\n\n'), settings.heartbeatMs);
    const lifetime = setTimeout(() => this.close(), settings.lifetimeMs);
    this.timers = [heartbeat, lifetime];
    for (const timer of this.timers) timer.unref();
  }

  get closed(): boolean {
    return this.ended;
  }

  /** One event: its id (the position a reconnection resumes after), its name, its data (one line per line of text). */
  send(event: string, id: string | undefined, data: string): void {
    const lines = data.split(/\r\n|\r|\n/).map((line) => `data: ${line}\n`);
    this.write(`${id === undefined ? '' : `id: ${id}\n`}event: ${event}\n${lines.join('')}\n`);
  }

  /** Resolves once the reader has taken what was sent, down to the buffer's mark (at once when it has, or once closed). */
  drained(): Promise<void> {
    if (this.ended || this.body.readableLength < HIGH_WATER_BYTES) return Promise.resolve();
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** Runs once the stream has closed, whatever closed it. */
  onClose(handler: () => void): void {
    if (this.ended) handler();
    else this.closeHandlers.push(handler);
  }

  /** Ends the stream: what was sent goes out, then the response ends (the client may reconnect). */
  close(): void {
    if (this.ended) return;
    this.finish();
    this.body.push(null);
  }

  private write(text: string): void {
    if (!this.ended) this.body.push(text);
  }

  private release(): void {
    const waiting = this.waiting;
    this.waiting = [];
    for (const resolve of waiting) resolve();
  }

  private finish(): void {
    if (this.ended) return;
    this.ended = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.release();
    for (const handler of this.closeHandlers.splice(0)) handler();
  }
}

/**
 * The event streams open on this server process: at most `perCaller` for one caller at a time (who, as the burst
 * limit counts: a key, or a person through any of its sessions), and all closed when the server shuts down
 * (`closeAll`, before Fastify waits for its connections to end).
 */
export class EventStreams {
  private readonly byCaller = new Map<string, Set<EventStream>>();
  private shut = false;

  constructor(readonly settings: StreamSettings = STREAM_SETTINGS) {}

  /** A new stream for the caller; a 429 when it has as many open here as it may, a 503 once the server is shutting down. */
  open(caller: string): EventStream {
    if (this.shut) throw errors.unavailable('The server is shutting down: reconnect (to another server).');
    const mine = this.byCaller.get(caller) ?? new Set<EventStream>();
    if (mine.size >= this.settings.perCaller) throw errors.tooManyStreams(this.settings.perCaller, Math.ceil(this.settings.retryMs / 1000));
    const stream = new EventStream(this.settings, () => {
      mine.delete(stream);
      if (mine.size === 0) this.byCaller.delete(caller);
    });
    mine.add(stream);
    this.byCaller.set(caller, mine);
    return stream;
  }

  /** How many streams are open on this process. */
  get size(): number {
    let open = 0;
    for (const streams of this.byCaller.values()) open += streams.size;
    return open;
  }

  /** Ends every stream, and refuses new ones: the server is shutting down. */
  closeAll(): void {
    this.shut = true;
    for (const streams of [...this.byCaller.values()]) for (const stream of [...streams]) stream.close();
  }
}
