import pg from 'pg';
import { type BusLog, SharedEventBus } from '../lib/event-bus.js';
import { postgresConnection } from './postgres.js';

/** The first reconnection's delay after the connection is lost, doubled while it fails, up to the most. */
const RECONNECT_MS = 100;
const RECONNECT_MAX_MS = 5000;
const CONNECT_TIMEOUT_MS = 5000;
/** How the listening connections show in pg_stat_activity. */
const APPLICATION_NAME = 'portal-events';

/**
 * The event bus over PostgreSQL's LISTEN/NOTIFY, when there is no Redis: every process of the database listens on
 * one channel, `portal_events_<databaseId>` (a channel is the PostgreSQL database's, so the id keeps apart the
 * schemas of one database too). One connection of its own, outside the pool (a listening connection is held for
 * good): it listens, and sends this process's events (`pg_notify`, after the change's own commit). Lost, it is
 * opened again with backoff; once it listens again, this process's streams read what they missed, and when a
 * publish failed meanwhile, every other process is told to (`missed`).
 */
export class PostgresEventBus extends SharedEventBus {
  readonly transport = 'postgres';
  /** The connection being opened or open (the one whose loss counts), and the one listening once it does. */
  private current: pg.Client | null = null;
  private client: pg.Client | null = null;
  private listenedOnce = false;
  private closed = false;
  private retryMs = RECONNECT_MS;
  private retry: NodeJS.Timeout | null = null;
  /** Events waiting for the connection: sent together, one statement at a time (a connection runs one at once). */
  private outbox: { text: string; sent: () => void; failed: (error: unknown) => void }[] = [];
  private sending = false;

  private constructor(
    private readonly connectionString: string,
    private readonly channel: string,
    log: BusLog,
  ) {
    super(log);
  }

  /** A bus listening on the database's channel; if the first connection fails, one that keeps trying in the background. */
  static async open(databaseUrl: string, databaseId: string, log: BusLog): Promise<PostgresEventBus> {
    const channel = `portal_events_${databaseId.replaceAll('-', '')}`;
    if (!/^[a-z0-9_]{1,63}$/.test(channel)) throw new Error(`invalid event channel "${channel}"`);
    const bus = new PostgresEventBus(postgresConnection(databaseUrl).connectionString, channel, log);
    await bus.connect();
    return bus;
  }

  private async connect(): Promise<void> {
    this.retry = null;
    const client = new pg.Client({
      connectionString: this.connectionString,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      application_name: APPLICATION_NAME,
    });
    this.current = client;
    const lost = (error?: Error) => this.lost(client, error);
    client.on('error', lost);
    client.on('end', () => lost());
    client.on('notification', (message) => {
      if (message.channel === this.channel && message.payload !== undefined) this.received(message.payload);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${this.channel}`);
    } catch (error) {
      this.lost(client, error as Error);
      return void client.end().catch(() => {});
    }
    if (this.closed || this.current !== client) return void client.end().catch(() => {});
    this.client = client;
    this.retryMs = RECONNECT_MS;
    const again = this.listenedOnce;
    this.listenedOnce = true;
    if (again) this.log.info({}, 'event bus (postgres): listening again; streams read what they missed');
    // Listening (again): whatever was sent while it was not went by unseen (no stream is open yet at the start).
    this.connected(true);
  }

  /** The connection failed or ended: a new one after the backoff (once per connection, whichever event comes first). */
  private lost(client: pg.Client, error?: Error): void {
    if (this.closed || client !== this.current) return; // an older connection's late event, or a second one of this loss
    this.current = null;
    this.client = null;
    this.log.warn({ err: error, retryInMs: this.retryMs }, 'event bus (postgres): the listening connection is lost; opening another');
    this.retry = setTimeout(() => void this.connect(), this.retryMs);
    this.retry.unref();
    this.retryMs = Math.min(this.retryMs * 2, RECONNECT_MAX_MS);
  }

  protected send(text: string): Promise<void> {
    return new Promise((sent, failed) => {
      this.outbox.push({ text, sent, failed });
      if (!this.sending) void this.flush();
    });
  }

  /** Sends what waits, all of it in one statement, again while more came meanwhile. */
  private async flush(): Promise<void> {
    this.sending = true;
    while (this.outbox.length > 0) {
      const batch = this.outbox.splice(0);
      try {
        if (!this.client) throw new Error('not connected');
        await this.client.query('select pg_notify($1, payload) from unnest($2::text[]) as payload', [
          this.channel,
          batch.map((event) => event.text),
        ]);
        for (const event of batch) event.sent();
      } catch (error) {
        for (const event of batch) event.failed(error);
      }
    }
    this.sending = false;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    const client = this.current;
    this.current = null;
    this.client = null;
    await client?.end().catch(() => {});
  }
}
