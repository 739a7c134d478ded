import { Redis } from 'ioredis';
import { type BusLog, SharedEventBus } from './event-bus.js';

const CONNECT_TIMEOUT_MS = 1000;
const RECONNECT_MAX_DELAY_MS = 1000;
/** How long the start waits for the first subscription before serving anyway (the bus then catches up: `missed`). */
const FIRST_SUBSCRIBE_WAIT_MS = 2000;

/**
 * The event bus over Redis pub/sub (REDIS_URL): one channel per database, `<REDIS_KEY_PREFIX>events:<databaseId>`, so
 * deployments sharing a Redis, or databases sharing a prefix, stay apart. Two connections: a subscriber (a connection
 * in subscribe mode takes no other command) and a publisher that fails fast while Redis is unreachable (no offline
 * queue: an event is not delayed behind a reconnection; the other processes are told `missed` once it is back).
 */
export class RedisEventBus extends SharedEventBus {
  readonly transport = 'redis';
  private readonly publisher: Redis;
  private readonly subscriber: Redis;
  private subscribedOnce = false;
  private closed = false;

  private constructor(
    url: string,
    private readonly channel: string,
    log: BusLog,
  ) {
    super(log);
    const options = {
      connectTimeout: CONNECT_TIMEOUT_MS,
      retryStrategy: (times: number) => Math.min(times * 100, RECONNECT_MAX_DELAY_MS),
    };
    this.publisher = new Redis(url, { ...options, enableOfflineQueue: false, maxRetriesPerRequest: 0 });
    // Subscribed again by hand after a reconnection (below), so that `missed` is told only once it listens again.
    this.subscriber = new Redis(url, { ...options, autoResubscribe: false, maxRetriesPerRequest: 0 });
    // Failures are reported as the bus sees them (a lost publish, a resubscription); without a listener ioredis prints each.
    this.publisher.on('error', () => {});
    this.subscriber.on('error', () => {});
    this.publisher.on('ready', () => this.connected(false));
    this.subscriber.on('message', (channel: string, text: string) => {
      if (channel === this.channel) this.received(text);
    });
    this.subscriber.on('ready', () => void this.listen());
  }

  /** A bus listening on `channel` (or, if Redis did not answer within 2 s, one that will once it does). */
  static async open(url: string, channel: string, log: BusLog): Promise<RedisEventBus> {
    const bus = new RedisEventBus(url, channel, log);
    const subscribed = new Promise<void>((resolve) => {
      bus.onFirstSubscribe = resolve;
      setTimeout(resolve, FIRST_SUBSCRIBE_WAIT_MS).unref();
    });
    await subscribed;
    if (!bus.subscribedOnce) log.warn({}, 'event bus (redis): not subscribed yet; streams get other processes’ messages once it is');
    return bus;
  }

  private onFirstSubscribe: () => void = () => {};

  /** (Re)subscribes after a connection is ready; after a loss, the listeners read what went by meanwhile. */
  private async listen(): Promise<void> {
    try {
      await this.subscriber.subscribe(this.channel);
    } catch {
      return; // the connection went again: its next `ready` subscribes
    }
    if (this.closed) return;
    const again = this.subscribedOnce;
    this.subscribedOnce = true;
    this.onFirstSubscribe();
    if (again) this.log.info({}, 'event bus (redis): listening again; streams read what they missed');
    // Listening (again): whatever was sent while it was not went by unseen (no stream is open yet at the start).
    this.connected(true);
  }

  protected async send(text: string): Promise<void> {
    await this.publisher.publish(this.channel, text);
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(
      [this.subscriber, this.publisher].map(async (redis) => {
        if (redis.status === 'end') return;
        if (redis.status !== 'ready') return redis.disconnect();
        await redis.quit().catch(() => redis.disconnect());
      }),
    );
  }
}
