import type { FastifyBaseLogger } from 'fastify';
import { PersonalDataSweep } from './audit/index.js';
import type { Config } from './config.js';
import type { Database, DbHandle } from './db/database.js';
import { readSecret } from './db/migrate.js';
import { PageTokens } from './db/paging.js';
import { readDatabaseId } from './db/server-settings.js';
import { AfterResponse } from './lib/after-response.js';
import { type Clock, systemClock } from './lib/clock.js';
import { type EventBus, InProcessEventBus } from './lib/event-bus.js';
import { EventStreams, STREAM_SETTINGS, type StreamSettings } from './lib/event-streams.js';
import { StreamCursors } from './lib/stream-cursors.js';
import { SecretBox } from './lib/secret-box.js';
import { AuthFailureLimiter } from './limits/auth-failures.js';
import { createLimitStore } from './limits/index.js';
import type { LimitStore } from './limits/limit-store.js';
import { BillingWorker, type PaymentProcessor, sandboxProcessor } from './modules/resources/billing/index.js';
import { EmailDelivery, type EmailDeliveryOptions } from './modules/resources/email-outbox/index.js';
import {
  FileContentSweep,
  type FileSettings,
  type FileStore,
  LocalFileStore,
  S3FileStore,
  UrlSigner,
} from './modules/resources/files/index.js';
import { type LookupAll, type WebhookSettings, WebhookWorker, type WebhookWorkerOptions } from './modules/resources/webhooks/index.js';
import { emailBrand } from './modules/resources/workspaces/index.js';

/** The server's secrets by use: cursors (page tokens, event streams' positions), webhook secrets, files' URLs, sign-in's sealed cookies and app keys, app builders' secrets. */
interface ServerSecrets {
  readonly paging: string;
  readonly webhooks: string;
  readonly files: string;
  readonly signIn: string;
  readonly appBuilder: string;
}

/** What every module needs, built once by buildApp and reached as `app.ctx`. */
export interface AppContext {
  readonly config: Config;
  readonly database: Database;
  readonly db: DbHandle;
  readonly clock: Clock;
  readonly pageTokens: PageTokens;
  /** The server's secrets (`server_secrets`), read once at start: what each seals, signs or encrypts with. */
  readonly secrets: ServerSecrets;
  /** Set on SIGTERM: readiness fails and connections close after their response, so a balancer moves away. */
  readonly lifecycle: { draining: boolean };
  /** Burst, quota and failed-authentication state: in-process, or Redis when REDIS_URL is set. */
  readonly limitStore: LimitStore;
  /** Failed authentications per client IP, for every credential the service checks. */
  readonly authFailures: AuthFailureLimiter;
  /** Sends the e-mail outbox when SMTP_URL is set; null otherwise (e-mails stay queued). */
  readonly emailDelivery: EmailDelivery | null;
  /**
   * The payment processor (the built-in sandbox), and the worker that bills subscriptions' periods and makes and
   * retries automatic charges as they fall due (null: this app does not).
   */
  readonly billing: { readonly processor: PaymentProcessor; readonly worker: BillingWorker | null };
  /** Webhook endpoints' settings (secrets, address policy) and the worker that delivers (null: this process does not). */
  readonly webhooks: { readonly settings: WebhookSettings; readonly worker: WebhookWorker | null };
  /** Files' content store (FILES_DIR), the signer of its URLs, and their limits. */
  readonly files: FileSettings;
  /** Work requests do after their answer has gone out (e-mailed links: the answer's time tells nothing of the address). */
  readonly afterResponse: AfterResponse;
  /**
   * Committed changes told to every process (`bus`: Redis, PostgreSQL or this process alone), the event streams open
   * on this process (closed before the server waits for its connections), and the streams' positions as ids show them.
   */
  readonly events: { readonly bus: EventBus; readonly streams: EventStreams; readonly cursors: StreamCursors };
}

declare module 'fastify' {
  interface FastifyInstance {
    ctx: AppContext;
  }
}

/** How the context is built: tests share stores and a clock, and run the loops at their own pace. */
export interface ContextOptions {
  clock?: Clock;
  /** Limit state (tests share one between app instances); otherwise made from config. */
  limitStore?: LimitStore;
  /** E-mail delivery's timing (tests poll and retry in milliseconds). */
  emailDelivery?: Pick<EmailDeliveryOptions, 'pollMs' | 'retryDelaysMs'>;
  /** How often files' content without a row, and what uploads cut short left, is removed (default hourly). */
  fileOrphanSweepMs?: number;
  /** How often the audit log's expired personal data is blanked (default hourly). */
  auditPiiSweepMs?: number;
  /** Webhook delivery's timing and name resolution (tests); `false`: this app runs no worker. */
  webhooks?: (Omit<WebhookWorkerOptions, 'allowPrivate'> & { lookup?: LookupAll }) | false;
  /** How often subscriptions are checked for due periods (default 10 s); `false`: this app bills none. */
  subscriptionPollMs?: number | false;
  /** Event streams' heartbeat, lifetime, reconnection delay and bound per caller (tests shorten them). */
  eventStreams?: Partial<StreamSettings>;
}

/**
 * The event bus, chosen once: Redis pub/sub when REDIS_URL is set (the processes share it already), else PostgreSQL's
 * LISTEN/NOTIFY, else this process alone (SQLite: one process per database file). Its channel is named after the
 * database's id, so that databases sharing a Redis (under one key prefix too) or a PostgreSQL server stay apart.
 */
async function createEventBus(config: Config, database: Database, databaseId: string, log: FastifyBaseLogger): Promise<EventBus> {
  if (config.redisUrl) {
    const { RedisEventBus } = await import('./lib/redis-event-bus.js');
    return RedisEventBus.open(config.redisUrl, `${config.limits.redisKeyPrefix}events:${databaseId}`, log);
  }
  if (database.dialect === 'postgres' && config.databaseUrl.startsWith('postgres')) {
    const { PostgresEventBus } = await import('./db/notify-event-bus.js');
    return PostgresEventBus.open(config.databaseUrl, databaseId, log);
  }
  return new InProcessEventBus(log);
}

/**
 * Builds what every module needs, once per process: the stores (limits, files' content), the server's secrets, the
 * event bus and the event streams, and the loops off the request path (webhook delivery, e-mail, billing, the two
 * sweeps), started here; `close` stops them in order (the database itself is the caller's).
 */
export async function buildContext(
  config: Config,
  database: Database,
  log: FastifyBaseLogger,
  options: ContextOptions,
): Promise<{ ctx: AppContext; close: () => Promise<void> }> {
  database.watchPoolErrors?.((error) =>
    log.error({ err: error }, 'database: an idle pooled connection failed; the pool replaces it on the next query'),
  );
  const limitStore = options.limitStore ?? (await createLimitStore(config, database.db));
  limitStore.watch?.((event) =>
    event.shared
      ? log.info({ handedBack: event.handedBack }, 'limits: Redis answers again; shared counting resumed (units counted meanwhile added)')
      : log.warn({ err: event.error }, 'limits: Redis is unreachable; this process limits on its own until it answers'),
  );
  const clock = options.clock ?? systemClock;
  const webhookOptions = options.webhooks === false ? undefined : options.webhooks;
  // Read once: the routes and workers take them from here.
  const secrets: ServerSecrets = {
    paging: await readSecret(database, 'paging'),
    webhooks: await readSecret(database, 'webhooks'),
    files: await readSecret(database, 'files'),
    signIn: await readSecret(database, 'sign-in'),
    appBuilder: await readSecret(database, 'app-builder'),
  };
  const webhookSettings = {
    secrets: new SecretBox(secrets.webhooks),
    allowPrivate: config.webhooksAllowPrivate,
    lookup: webhookOptions?.lookup,
  };
  // Files' content under this database's own id: databases sharing one directory or bucket prefix keep apart.
  const databaseId = await readDatabaseId(database);
  const bus = await createEventBus(config, database, databaseId.id, log.child({ component: 'events' }));
  const fileStore: FileStore = config.filesS3
    ? new S3FileStore(config.filesS3, databaseId.id)
    : new LocalFileStore(config.filesDir, databaseId.id);
  // Longer than any upload may take: a request arrives whole within REQUEST_TIMEOUT_MS.
  const uploadGraceMs = Math.max(60_000, config.requestTimeoutMs * 2);
  const ctx: AppContext = {
    config,
    database,
    db: database.db,
    clock,
    pageTokens: new PageTokens(secrets.paging),
    secrets,
    lifecycle: { draining: false },
    limitStore,
    authFailures: new AuthFailureLimiter(limitStore, config.limits.authFailuresPerMinute),
    billing: {
      processor: sandboxProcessor,
      worker:
        options.subscriptionPollMs === false
          ? null
          : new BillingWorker(database, sandboxProcessor, clock, log.child({ component: 'billing' }), options.subscriptionPollMs),
    },
    webhooks: {
      settings: webhookSettings,
      worker:
        options.webhooks === false
          ? null
          : new WebhookWorker(database, clock, log.child({ component: 'webhooks' }), webhookSettings.secrets, {
              ...webhookOptions,
              allowPrivate: config.webhooksAllowPrivate,
            }),
    },
    files: {
      store: fileStore,
      signer: new UrlSigner(secrets.files),
      baseUrl: config.portalUrl,
      maxBytes: config.filesMaxBytes,
      urlTtlSeconds: config.filesUrlTtlSeconds,
      uploadGraceMs,
    },
    // Sends notifications' e-mails only when there is an SMTP server to send them through.
    emailDelivery: config.smtpUrl
      ? new EmailDelivery(database, clock, log.child({ component: 'email' }), {
          smtpUrl: config.smtpUrl,
          from: config.smtpFrom,
          // Every e-mail comes from its business: the workspace's name, and its colour and logo in the HTML part (issue 44).
          brand: (workspaceId) => emailBrand(database, workspaceId, config.portalUrl),
          ...options.emailDelivery,
        })
      : null,
    afterResponse: new AfterResponse(log),
    events: {
      bus,
      // A heartbeat within half the socket's idle timeout (four times REQUEST_TIMEOUT_MS), however short that is set.
      streams: new EventStreams({
        ...STREAM_SETTINGS,
        heartbeatMs: Math.min(STREAM_SETTINGS.heartbeatMs, config.requestTimeoutMs * 2),
        ...options.eventStreams,
      }),
      cursors: new StreamCursors(secrets.paging),
    },
  };
  // The two sweeps: the audit log's personal data past PORTAL_AUDIT_PII_DAYS (when set), and files' content no
  // row names or that an upload cut short left; each a round at start, then hourly.
  const piiSweep =
    config.auditPiiDays === undefined
      ? null
      : new PersonalDataSweep(database.db, clock, config.auditPiiDays, log.child({ component: 'audit' }), options.auditPiiSweepMs);
  log.info(
    {
      databaseId: databaseId.id,
      at: config.filesS3
        ? `s3://${config.filesS3.bucket}/${config.filesS3.prefix}${databaseId.id}/`
        : `${config.filesDir}/${databaseId.id}/`,
    },
    'files: this database’s content is kept under its id',
  );
  const contentSweep = new FileContentSweep(
    database,
    fileStore,
    { graceMs: uploadGraceMs, quarantineMs: config.filesQuarantineDays * 86_400_000, namespaceSinceMs: databaseId.sinceMs },
    log.child({ component: 'files' }),
    options.fileOrphanSweepMs,
  );
  // In order: what answered requests still had to write, the loops, then the stores they write to.
  const close = async () => {
    ctx.events.streams.closeAll(); // closed already before the server waited for its connections (app.ts), unless it never listened
    await ctx.afterResponse.settled(); // what answered requests still had to write
    await contentSweep.close();
    await fileStore.close?.();
    await ctx.emailDelivery?.close(); // before the database they write to
    await ctx.webhooks.worker?.close();
    await ctx.billing.worker?.close();
    await piiSweep?.close();
    await ctx.limitStore.close(); // first: the in-process store writes its counts to the database
    await ctx.events.bus.close();
  };

  return { ctx, close };
}
