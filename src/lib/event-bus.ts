import { randomUUID } from 'node:crypto';

/**
 * The event bus: what committed, told to every server process of one database, so that a stream open on any of them
 * sends it (GET /v1/messages/stream). Chosen at start (src/context.ts): Redis pub/sub when REDIS_URL is set
 * (lib/redis-event-bus.ts), else PostgreSQL's LISTEN/NOTIFY (db/notify-event-bus.ts), else this process alone
 * (SQLite: one process per database file). An event names what changed, never its content: subscribers read that
 * from the database, with the caller's access, so a payload stays a few hundred bytes whatever the message's size.
 * Delivery is best effort (a process may be cut off from the bus for a while): a subscriber reads everything after
 * the last position it sent, so one event, or `missed`, brings it up to date whatever went unseen before.
 */

/** A change that committed: its workspace, and what a subscriber needs to decide whether to read anything. */
export interface CommittedEvent {
  readonly kind: 'message.created';
  readonly workspaceId: string;
  readonly channelId: string;
  readonly messageId: string;
}

export interface BusListener {
  /** A change committed (in this process or another). */
  event(event: CommittedEvent): void;
  /** Events may have gone by unseen (the bus was unreachable for a while): read again whatever may have changed. */
  missed(): void;
}

export interface EventBus {
  /** What carries events between processes: `redis`, `postgres`, or `in-process` (one process). */
  readonly transport: 'redis' | 'postgres' | 'in-process';
  /** Tells every subscriber, in every process; call it after the commit (`work.onCommit`), never before. Never throws. */
  publish(event: CommittedEvent): void;
  /** Adds a listener; the function returned removes it. */
  subscribe(listener: BusListener): () => void;
  /** Stops listening and closes the connections (after the streams have closed). */
  close(): Promise<void>;
}

/** This process's listeners: one listener's failure reaches neither the publisher nor the others. */
class Listeners {
  private readonly all = new Set<BusListener>();

  add(listener: BusListener): () => void {
    this.all.add(listener);
    return () => void this.all.delete(listener);
  }

  event(event: CommittedEvent, onError: (error: unknown) => void): void {
    for (const listener of this.all) {
      try {
        listener.event(event);
      } catch (error) {
        onError(error);
      }
    }
  }

  missed(onError: (error: unknown) => void): void {
    for (const listener of this.all) {
      try {
        listener.missed();
      } catch (error) {
        onError(error);
      }
    }
  }
}

/** Where a bus reports what it cannot hand to anyone: the app's logger, in the app. */
export interface BusLog {
  warn(fields: object, message: string): void;
  info(fields: object, message: string): void;
}

/** The bus of one process (SQLite): events reach this process's listeners only. */
export class InProcessEventBus implements EventBus {
  readonly transport = 'in-process';
  private readonly listeners = new Listeners();

  constructor(private readonly log?: BusLog) {}

  publish(event: CommittedEvent): void {
    this.listeners.event(event, (error) => this.log?.warn({ err: error }, 'event bus: a listener failed'));
  }

  subscribe(listener: BusListener): () => void {
    return this.listeners.add(listener);
  }

  async close(): Promise<void> {}
}

/** What travels between processes: an event, or "events of mine may have been lost", tagged with the sending process. */
type Wire = { o: string; k: 'missed' } | { o: string; k: CommittedEvent['kind']; w: string; c: string; m: string };

const isText = (value: unknown): value is string => typeof value === 'string' && value.length > 0 && value.length <= 100;

/**
 * A bus over a transport between processes (Redis, PostgreSQL). This process's listeners get its events at once,
 * without the round trip (and when the transport is down); the transport carries them to the others, and what it
 * brings back from this process is dropped. When a publish could not be sent, every process is told `missed` once the
 * transport works again; when this process's listening connection comes back, its own listeners are.
 */
export abstract class SharedEventBus implements EventBus {
  abstract readonly transport: 'redis' | 'postgres';
  private readonly listeners = new Listeners();
  /** This process's tag on what it sends. */
  private readonly origin = randomUUID();
  /** A publish failed since the transport last worked. */
  private lostPublishes = false;

  protected constructor(protected readonly log: BusLog) {}

  /** Sends a message to every process (this one included); rejects when the transport cannot take it now. */
  protected abstract send(text: string): Promise<void>;
  abstract close(): Promise<void>;

  publish(event: CommittedEvent): void {
    this.listeners.event(event, this.listenerFailed);
    const wire: Wire = { o: this.origin, k: event.kind, w: event.workspaceId, c: event.channelId, m: event.messageId };
    this.send(JSON.stringify(wire)).catch((error) => {
      if (!this.lostPublishes)
        this.log.warn({ err: error }, `event bus (${this.transport}): an event could not be sent to the other processes`);
      this.lostPublishes = true;
    });
  }

  subscribe(listener: BusListener): () => void {
    return this.listeners.add(listener);
  }

  /** What the transport brought: another process's event (or its `missed`); this process's own, and anything else, dropped. */
  protected received(text: string): void {
    let wire: Record<string, unknown> | null;
    try {
      wire = JSON.parse(text);
    } catch {
      return;
    }
    if (wire === null || typeof wire !== 'object' || wire.o === this.origin) return;
    if (wire.k === 'missed') this.listeners.missed(this.listenerFailed);
    else if (wire.k === 'message.created' && isText(wire.w) && isText(wire.c) && isText(wire.m))
      this.listeners.event({ kind: wire.k, workspaceId: wire.w, channelId: wire.c, messageId: wire.m }, this.listenerFailed);
  }

  /**
   * The transport works (again). `listening`: this process's listening connection is subscribed again after a loss,
   * so what was sent meanwhile went by unseen. Events this process failed to send: every other process reads again.
   */
  protected connected(listening: boolean): void {
    if (listening) this.listeners.missed(this.listenerFailed);
    if (!this.lostPublishes) return;
    this.lostPublishes = false;
    const wire: Wire = { o: this.origin, k: 'missed' };
    this.send(JSON.stringify(wire)).then(
      () => this.log.info({}, `event bus (${this.transport}): sending again; the other processes were told to read what they missed`),
      () => {
        this.lostPublishes = true;
      },
    );
  }

  private readonly listenerFailed = (error: unknown) => this.log.warn({ err: error }, 'event bus: a listener failed');
}
