import type { FastifyBaseLogger, FastifyReply } from 'fastify';

/**
 * Work a request does only after its answer has gone out: what must not tell, by how long the answer took, what the
 * work found (an e-mailed link's lookup of the address). A failure is logged, as nobody waits for it; the app's close
 * waits for what was started, and `settled` lets a test read what the work wrote.
 */
export class AfterResponse {
  private readonly pending = new Set<Promise<void>>();
  constructor(private readonly log: FastifyBaseLogger) {}

  /** Runs `work` once `reply` has been sent (or its connection closed). */
  run(reply: FastifyReply, what: string, work: () => Promise<void>): void {
    const sent = new Promise<void>((resolve) => {
      const raw = reply.raw;
      if (raw.writableFinished || raw.destroyed) return resolve();
      raw.once('finish', resolve).once('close', resolve);
    });
    const done: Promise<void> = sent
      .then(work)
      .catch((err) => this.log.error({ err }, `${what}: failed after the response`))
      .finally(() => this.pending.delete(done));
    this.pending.add(done);
  }

  /** Resolves once every piece of work started so far (and any it started meanwhile) has ended. */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.all(this.pending);
  }
}
