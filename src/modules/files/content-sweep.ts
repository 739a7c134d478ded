import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../../db/database.js';
import { LoopWorker } from '../../lib/background-loop.js';
import type { FileStore } from './file-store.js';
import { removeOrphanContent } from './files.service.js';

/**
 * Keeps the file store to what the database names, at start and then every `pollMs` (hourly): removes what
 * uploads cut short by a killed process left (temporary content), and content whose file row went (a client,
 * company or workspace deleted: the database's cascades cannot reach the store). Both spare what is younger
 * than `graceMs` (longer than any upload may take): another process's upload in progress, or about to commit.
 * Files' times are the file system's, so this reads the wall clock.
 */
export class FileContentSweep extends LoopWorker {
  constructor(
    private readonly database: Database,
    private readonly store: FileStore,
    private readonly graceMs: number,
    private readonly log: FastifyBaseLogger,
    pollMs = 3_600_000,
  ) {
    super({ pollMs, maxSteps: 1, onError: (error) => log.error({ err: error }, 'files: sweeping the file store failed') });
  }

  protected async step(): Promise<boolean> {
    const temporary = await this.store.sweep(this.graceMs);
    if (temporary > 0) this.log.info({ removed: temporary }, 'files: content of uploads cut short removed');
    const removed = await removeOrphanContent(this.database, this.store, this.graceMs);
    if (removed > 0) this.log.info({ removed }, 'files: content of deleted files removed');
    return false; // one sweep per round
  }
}
