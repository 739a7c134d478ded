/**
 * What a round may meet that a round soon after gets past (SQLite's "database is locked": another process held the
 * write lock past the busy timeout): such a round is run again after a short backoff, doubling while it repeats,
 * and told to `onBusy` (how many rounds in a row met it, and when the next runs), never to `onError`.
 */
export interface BusyRetry {
  isBusy: (error: unknown) => boolean;
  onBusy: (roundsInARow: number, retryInMs: number) => void;
}

/** The first retry of a busy round, doubled while they repeat, up to the most. */
const BUSY_RETRY_MS = 50;
const BUSY_RETRY_MAX_MS = 2_000;

/**
 * Work done off the request path, in rounds: a round runs on `wake()` (after a commit that made work)
 * and every `pollMs` (work that came due, or that another process left); one round at a time, a wake
 * during a round runs another after it; errors are reported and the loop goes on; the timer never holds
 * the process open (a round that met a busy database runs again shortly: BusyRetry); `close` waits for the running round. A round repeats its `step` while the step
 * says more work may be waiting (a full batch), at most `maxSteps` times, and stops once closed.
 * Rounds start at least `minGapMs` apart: under a stream of commits the wakes of one gap make one round
 * (one batch) instead of a round per commit competing with the requests for the database.
 */
export class BackgroundLoop {
  private readonly timer: NodeJS.Timeout;
  private running: Promise<void> | null = null;
  private again = false;
  private closed = false;
  private lastStart = -Infinity;
  private delayed: NodeJS.Timeout | null = null;
  private busyInARow = 0;
  private retry: NodeJS.Timeout | null = null;

  constructor(
    private readonly step: () => Promise<boolean>,
    pollMs: number,
    private readonly onError: (error: unknown) => void,
    private readonly maxSteps = 1,
    private readonly minGapMs = 0,
    private readonly busy?: BusyRetry,
  ) {
    this.timer = setInterval(() => this.wake(), pollMs);
    this.timer.unref();
    // The first round once the owner's constructor has returned: a round may use the owner's fields
    // (its `loop` among them), which are not assigned while this constructor runs.
    queueMicrotask(() => this.wake());
  }

  private async round(): Promise<void> {
    for (let i = 0; i < this.maxSteps && !this.closed; i++) if (!(await this.step())) return;
  }

  wake(): void {
    if (this.closed) return;
    if (this.running) {
      this.again = true;
      return;
    }
    const wait = this.lastStart + this.minGapMs - performance.now();
    if (wait > 0) {
      if (this.delayed === null) {
        this.delayed = setTimeout(() => {
          this.delayed = null;
          this.wake();
        }, wait);
        this.delayed.unref();
      }
      return;
    }
    this.lastStart = performance.now();
    this.running = this.round()
      .then(
        () => {
          this.busyInARow = 0;
        },
        (error: unknown) => this.failed(error),
      )
      .finally(() => {
        this.running = null;
        if (this.again) {
          this.again = false;
          this.wake();
        }
      });
  }

  private failed(error: unknown): void {
    if (!this.busy?.isBusy(error)) {
      this.busyInARow = 0;
      this.onError(error);
      return;
    }
    this.busyInARow++;
    const inMs = Math.min(BUSY_RETRY_MAX_MS, BUSY_RETRY_MS * 2 ** Math.min(this.busyInARow - 1, 16));
    this.busy.onBusy(this.busyInARow, inMs);
    if (this.retry !== null || this.closed) return;
    this.retry = setTimeout(() => {
      this.retry = null;
      this.wake();
    }, inMs);
    this.retry.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    if (this.delayed !== null) clearTimeout(this.delayed);
    if (this.retry !== null) clearTimeout(this.retry);
    await this.running;
  }
}

/**
 * An outbox's worker: its `step` runs in a BackgroundLoop, woken after the commits that give it work and
 * polled for work that came due (retries) or that another process left. The webhook worker, the e-mail
 * delivery and the subscription biller are each one.
 */
export abstract class LoopWorker {
  private readonly loop: BackgroundLoop;

  constructor(options: { pollMs: number; maxSteps: number; minGapMs?: number; onError: (error: unknown) => void; busy?: BusyRetry }) {
    this.loop = new BackgroundLoop(() => this.step(), options.pollMs, options.onError, options.maxSteps, options.minGapMs, options.busy);
  }

  /** One batch of work; true when it was full (more may be waiting). */
  protected abstract step(): Promise<boolean>;

  /** Runs a round now (after the one under way, if any). */
  wake(): void {
    this.loop.wake();
  }

  /** Stops waking and waits for the round under way. */
  close(): Promise<void> {
    return this.loop.close();
  }
}
