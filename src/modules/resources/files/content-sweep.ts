// The files content sweep: keeping the store to what the database's rows name, and the loop running it hourly.
import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../../../db/database.js';
import { LoopWorker } from '../../../lib/background-loop.js';
import type { Area, FileStore } from './file-store.js';
import * as repo from './files.repository.js';

/** What one sweep of the store did: each count of objects. */
export interface ContentSweepCounts {
  /** Copied from the legacy layout under the database's id: rows of this database name them. */
  adopted: number;
  /** Their legacy copy removed, a window after the database got its id (old processes of it gone). */
  legacyRemoved: number;
  /** Moved to quarantine: no row names them (their file went with its channel, client, company or workspace). */
  quarantined: number;
  /** Moved back out of quarantine: a row names them again (a restored database). */
  restored: number;
  /** Deleted from quarantine after `quarantineMs` there. */
  deleted: number;
}

/**
 * Keeps the store's content to what this database's rows name, never reaching past the database's own
 * namespace except to copy in the legacy content its rows name. Content written within `graceMs` is spared (an
 * upload renames its content into place just before it commits the row). Orphans are not deleted at once but
 * quarantined, and deleted only when a sweep finds them there `quarantineMs` later and still unnamed: a mistake
 * (a database restored from a backup) is put right by the sweep itself, or by hand meanwhile.
 */
export async function sweepContent(
  database: Database,
  store: FileStore,
  options: { graceMs: number; quarantineMs: number; namespaceSinceMs: number },
  nowMs = Date.now(),
): Promise<ContentSweepCounts> {
  const counts: ContentSweepCounts = { adopted: 0, legacyRemoved: 0, quarantined: 0, restored: 0, deleted: 0 };
  /** Runs `each` over an area's keys in batches of 500, told whether a row of this database names the key. */
  const inBatches = async (area: Area, each: (key: string, named: boolean, modifiedMs: number) => Promise<void>) => {
    let batch: { key: string; modifiedMs: number }[] = [];
    const check = async () => {
      const named = await repo.existingFileIds(
        database.db,
        batch.map(({ key }) => key.slice(key.indexOf('/') + 1)),
      );
      for (const { key, modifiedMs } of batch) await each(key, named.has(key), modifiedMs);
      batch = [];
    };
    for await (const object of store.list(area)) {
      batch.push(object);
      if (batch.length === 500) await check();
    }
    await check();
  };
  // Legacy content is another database's unless a row of this one names it (keys are random ids): only then
  // copied in; its legacy copy stays while processes of the release before may still read it there.
  const legacyDone = nowMs - options.namespaceSinceMs >= options.quarantineMs;
  await inBatches('legacy', async (key, named) => {
    if (!named) return;
    if (!(await store.has(key, 'live')) && (await store.copy(key, 'legacy', 'live'))) counts.adopted++;
    if (legacyDone && (await store.has(key, 'live'))) {
      await store.remove(key, ['legacy']);
      counts.legacyRemoved++;
    }
  });
  await inBatches('quarantine', async (key, named, quarantinedMs) => {
    if (named) {
      if (await store.has(key, 'live')) await store.remove(key, ['quarantine']);
      else if (await store.move(key, 'quarantine', 'live')) counts.restored++;
    } else if (nowMs - quarantinedMs >= options.quarantineMs) {
      await store.remove(key, ['quarantine']);
      counts.deleted++;
    }
  });
  await inBatches('live', async (key, named, modifiedMs) => {
    if (named || nowMs - modifiedMs < options.graceMs) return;
    if (await store.move(key, 'live', 'quarantine')) counts.quarantined++;
  });
  return counts;
}

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
