/**
 * A job run every `intervalMs` (and once at start), off the request path: one run at a time, errors
 * reported and the next run kept, the timer never holding the process open. `close` waits for a run.
 */
export class PeriodicJob {
  private readonly timer: NodeJS.Timeout;
  private running: Promise<void> | null = null;

  constructor(
    private readonly job: () => Promise<void>,
    intervalMs: number,
    private readonly onError: (error: unknown) => void,
  ) {
    this.timer = setInterval(() => this.run(), intervalMs);
    this.timer.unref();
    this.run();
  }

  private run(): void {
    if (this.running) return;
    this.running = this.job()
      .catch(this.onError)
      .finally(() => {
        this.running = null;
      });
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }
}
