import type { FastifyBaseLogger } from 'fastify';
import type { Transporter } from 'nodemailer';
import { LoopWorker } from '../../../lib/background-loop.js';
import type { Database } from '../../../db/database.js';
import { busyRetry } from '../../../db/errors.js';
import type { Clock } from '../../../lib/clock.js';
import { type EmailBrand, emailHtml } from './email-html.js';
import { claimDueEmails, markEmailAttemptFailed, markEmailSent } from './email-outbox.repository.js';

/** After a failed attempt, the next one waits this long (then the next delay, …); after the last the e-mail is `failed`. */
const EMAIL_RETRY_DELAYS_MS: readonly number[] = [
  5_000,
  30_000,
  2 * 60_000,
  10 * 60_000,
  30 * 60_000,
  60 * 60_000,
  2 * 3_600_000,
  4 * 3_600_000,
  8 * 3_600_000,
  12 * 3_600_000,
];

export interface EmailDeliveryOptions {
  smtpUrl: string;
  from: string;
  /**
   * The business a workspace's e-mails come from: its name (the sender's), colour and logo (the HTML part's band);
   * undefined (the workspace is gone, or none given): SMTP_FROM as it is, and the text alone.
   */
  brand?: (workspaceId: string) => Promise<EmailBrand | undefined>;
  /** How often the outbox is polled for e-mails that came due (retries, other processes' leftovers). */
  pollMs?: number;
  retryDelaysMs?: readonly number[];
}

/** E-mails claimed per batch, and batches per round: a round is bounded in work and time. */
const BATCH = 20;
const MAX_BATCHES_PER_ROUND = 50;
/** Longer than the SMTP timeouts below: a claim outlives the attempt that holds it. */
const LEASE_MS = 2 * 60_000;

/**
 * Sends the e-mail outbox by SMTP, after the commits that queue it: woken by each commit (`wake`) and
 * by a timer for retries. Every failure (a refused recipient, a server down) is retried on the schedule
 * above, so nothing queued is lost; the outbox row records each attempt.
 */
export class EmailDelivery extends LoopWorker {
  /** Made when the first e-mail is due: nodemailer is loaded then, not at start-up. */
  private transport: Transporter | undefined;
  private readonly retryDelaysMs: readonly number[];

  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly log: FastifyBaseLogger,
    private readonly options: EmailDeliveryOptions,
  ) {
    super({
      pollMs: options.pollMs ?? 5_000,
      maxSteps: MAX_BATCHES_PER_ROUND,
      onError: (error) => log.error({ err: error }, 'e-mail outbox: delivery round failed'),
      busy: busyRetry(log, 'e-mail outbox'),
    });
    this.retryDelaysMs = options.retryDelaysMs ?? EMAIL_RETRY_DELAYS_MS;
  }

  /** Claims and sends a batch of due e-mails; true when it was full (more may be due). */
  protected async step(): Promise<boolean> {
    const claimed = await claimDueEmails(this.database.db, this.clock.now(), LEASE_MS, BATCH);
    if (claimed.length === 0) return false;
    const transport = this.transport ?? (await this.connect());
    await Promise.all(claimed.map((email) => this.send(transport, email)));
    return claimed.length >= BATCH;
  }

  private async connect(): Promise<Transporter> {
    const { default: nodemailer } = await import('nodemailer');
    this.transport ??= nodemailer.createTransport({
      url: this.options.smtpUrl,
      pool: true,
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 30_000,
    });
    return this.transport;
  }

  private async send(
    transport: Transporter,
    email: { id: string; workspace_id: string; to_address: string; subject: string; text_body: string; attempts: number },
  ) {
    const attempts = email.attempts + 1;
    try {
      const brand = await this.options.brand?.(email.workspace_id);
      await transport.sendMail({
        from: this.fromOf(brand),
        to: email.to_address,
        subject: email.subject,
        // The text as queued, and beside it the same in HTML under the workspace's band (multipart/alternative).
        text: email.text_body,
        ...(brand ? { html: emailHtml(email.subject, email.text_body, brand) } : {}),
      });
      await markEmailSent(this.database.db, email.id, attempts, this.clock.now());
    } catch (error) {
      const delay = this.retryDelaysMs[attempts - 1];
      const retryAt = delay === undefined ? null : this.clock.now() + delay;
      const message = error instanceof Error ? error.message : String(error);
      this.log.warn({ emailId: email.id, attempts, retryAt, error: message }, 'e-mail outbox: attempt failed');
      await markEmailAttemptFailed(this.database.db, email.id, attempts, message, retryAt);
    }
  }

  /**
   * Every e-mail says which business it comes from: SMTP_FROM's address under the workspace's name (nodemailer
   * quotes and encodes it); SMTP_FROM as it is when the workspace is gone.
   */
  private fromOf(brand: EmailBrand | undefined): string | { name: string; address: string } {
    if (brand === undefined) return this.options.from;
    return { name: brand.name, address: /<([^<>]+)>\s*$/.exec(this.options.from)?.[1] ?? this.options.from.trim() };
  }

  /** Stops waking, lets the running drain finish, closes the SMTP connections. */
  override async close(): Promise<void> {
    await super.close();
    this.transport?.close();
  }
}
