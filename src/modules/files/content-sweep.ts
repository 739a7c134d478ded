import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../../db/database.js';
import { LoopWorker } from '../../lib/background-loop.js';
import type { FileStore } from './file-store.js';
import { sweepContent } from './files.service.js';

/**
 * Keeps the file store to what the database names, at start and then every `pollMs` (hourly), only under the
 * database's own id: removes what uploads cut short by a killed process left (temporary content), copies in the
 * legacy-layout content its rows name, and quarantines content whose file row went (a client, company or
 * workspace deleted: the database's cascades cannot reach the store), deleting it from quarantine on a sweep
 * `quarantineMs` later if no row names it again. What is younger than `graceMs` (longer than any upload may
 * take) is spared: another process's upload in progress, or about to commit. Files' times are the file
 * system's, so this reads the wall clock.
 */
export class FileContentSweep extends LoopWorker {
  constructor(
    private readonly database: Database,
    private readonly store: FileStore,
    private readonly options: { graceMs: number; quarantineMs: number; namespaceSinceMs: number },
    private readonly log: FastifyBaseLogger,
    pollMs = 3_600_000,
  ) {
    super({ pollMs, maxSteps: 1, onError: (error) => log.error({ err: error }, 'files: sweeping the file store failed') });
  }

  protected async step(): Promise<boolean> {
    const temporary = await this.store.sweep(this.options.graceMs);
    if (temporary > 0) this.log.info({ removed: temporary }, 'files: content of uploads cut short removed');
    const counts = await sweepContent(this.database, this.store, this.options);
    const { namespace } = this.store;
    if (counts.adopted > 0)
      this.log.info({ adopted: counts.adopted, namespace }, 'files: legacy-layout content this database names copied under its id');
    if (counts.legacyRemoved > 0)
      this.log.info({ removed: counts.legacyRemoved, namespace }, 'files: legacy-layout copies of adopted content removed');
    if (counts.quarantined > 0)
      this.log.info({ quarantined: counts.quarantined, namespace }, 'files: content no row names moved to quarantine');
    if (counts.restored > 0)
      this.log.warn({ restored: counts.restored, namespace }, 'files: quarantined content a row names again moved back');
    if (counts.deleted > 0) this.log.info({ deleted: counts.deleted, namespace }, 'files: quarantined content no row names deleted');
    return false; // one sweep per round
  }
}
