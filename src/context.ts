import type { Config } from './config.js';
import type { Database, DbHandle } from './db/database.js';
import type { PageTokens } from './db/paging.js';
import type { AfterResponse } from './lib/after-response.js';
import type { Clock } from './lib/clock.js';
import type { EmailDelivery } from './modules/email-outbox/index.js';
import type { BillingWorker, PaymentProcessor } from './modules/billing/index.js';
import type { FileSettings } from './modules/files/index.js';
import type { WebhookSettings, WebhookWorker } from './modules/webhooks/index.js';
import type { AuthFailureLimiter } from './limits/auth-failures.js';
import type { LimitStore } from './limits/limit-store.js';

/** The server's secrets by use: cursors, webhook secrets, files' URLs, sign-in's sealed cookies and app keys, app builders' secrets. */
export interface ServerSecrets {
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
}

declare module 'fastify' {
  interface FastifyInstance {
    ctx: AppContext;
  }
}
