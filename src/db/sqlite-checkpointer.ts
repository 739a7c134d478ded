import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * SQLite's automatic WAL checkpoint runs inside whichever commit crosses the threshold, fsync
 * included: on the event loop, it more than doubled the cost of a write. Instead a worker thread, on a
 * connection of its own, runs a PASSIVE checkpoint (never blocking readers or writers) a few times a
 * second, and the main connection's own checkpoint runs only past a long WAL (see openSqlite), with
 * little left to copy.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driverPath);
const db = new Database(workerData.path);
db.pragma('busy_timeout = 1000');
db.pragma('cache_size = -256'); // a checkpoint copies frames; it reads little through the cache
const checkpoint = () => { try { db.pragma('wal_checkpoint(PASSIVE)'); } catch {} };
const timer = setInterval(checkpoint, workerData.intervalMs);
parentPort.on('message', () => { clearInterval(timer); checkpoint(); db.close(); parentPort.close(); });
`;

/** How often the main thread looks whether the database was written (one counter read). */
const WATCH_MS = 1000;
/** A worker thread with nothing written for this long is stopped (after a last checkpoint). */
const IDLE_MS = 30_000;

export interface Checkpointer {
  stop(): Promise<void>;
}

/**
 * The worker runs only while the database is being written: a thread is a whole Node environment (some
 * 10 MB), which a server that only reads, or sits idle, does not need. `changes` is a count of the rows
 * this process wrote (SQLite's total_changes); what other processes write they checkpoint themselves
 * (their connections keep the automatic checkpoint). The thread is a helper: if it fails (it cannot open the
 * database, say), `onError` hears of it, the server goes on (the main connection's own checkpoint still runs past
 * a long WAL), and the next write starts another.
 */
export function startCheckpointer(
  path: string,
  changes: () => number,
  intervalMs = 250,
  onError: (error: Error) => void = (error) => process.emitWarning(`SQLite checkpointer thread failed: ${error.message}`),
): Checkpointer {
  const driverPath = createRequire(import.meta.url).resolve('better-sqlite3');
  let worker: { thread: Worker; exited: Promise<void> } | undefined;
  let seen = changes();
  let quietSince = Date.now();

  const startWorker = () => {
    // A small heap: the thread runs one pragma on a timer.
    const resourceLimits = { maxYoungGenerationSizeMb: 1, maxOldGenerationSizeMb: 16, stackSizeMb: 1 };
    const thread = new Worker(WORKER_SOURCE, { eval: true, workerData: { path, driverPath, intervalMs }, resourceLimits });
    thread.unref();
    const started = { thread, exited: new Promise<void>((resolve) => thread.once('exit', () => resolve())) };
    thread.once('error', (error) => {
      if (worker === started) worker = undefined;
      onError(error);
    });
    worker = started;
  };
  const stopWorker = async () => {
    if (!worker) return;
    const { thread, exited } = worker;
    worker = undefined;
    thread.ref(); // keep the process alive until the last checkpoint is done
    thread.postMessage('stop');
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([exited, new Promise((resolve) => (timer = setTimeout(resolve, 2000)))]);
    clearTimeout(timer);
    await thread.terminate();
  };

  const watch = setInterval(() => {
    const now = Date.now();
    const count = changes();
    if (count !== seen) {
      seen = count;
      quietSince = now;
      if (!worker) startWorker();
    } else if (worker && now - quietSince >= IDLE_MS) {
      void stopWorker();
    }
  }, WATCH_MS);
  watch.unref();

  return {
    async stop() {
      clearInterval(watch);
      await stopWorker();
    },
  };
}
