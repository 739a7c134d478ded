import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * SQLite's automatic WAL checkpoint runs inside whichever commit crosses the threshold, fsync
 * included: on the event loop, it more than doubled the cost of a write. Instead the main connection
 * never checkpoints, and this worker thread, on a connection of its own, runs a PASSIVE checkpoint
 * (never blocking readers or writers) a few times a second.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driverPath);
const db = new Database(workerData.path);
db.pragma('busy_timeout = 1000');
const checkpoint = () => { try { db.pragma('wal_checkpoint(PASSIVE)'); } catch {} };
const timer = setInterval(checkpoint, workerData.intervalMs);
parentPort.on('message', () => { clearInterval(timer); checkpoint(); db.close(); parentPort.close(); });
`;

export interface Checkpointer {
  stop(): Promise<void>;
}

export function startCheckpointer(path: string, intervalMs = 250): Checkpointer {
  const driverPath = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { path, driverPath, intervalMs } });
  worker.unref();
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  return {
    async stop() {
      worker.ref(); // keep the process alive until the last checkpoint is done
      worker.postMessage('stop');
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([exited, new Promise((resolve) => (timer = setTimeout(resolve, 2000)))]);
      clearTimeout(timer);
      await worker.terminate();
    },
  };
}
