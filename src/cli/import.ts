import { createReadStream, statSync } from 'node:fs';
import cliProgress from 'cli-progress';
import { systemClock } from '../lib/clock.js';
import { errors } from '../lib/errors.js';
import { importClients, type ImportProgress, MAX_REPORTED_ERRORS } from '../modules/workflows/client-csv/index.js';
import { type CommandGroup, command, requireWorkspace } from './command.js';
import { printResult } from './output.js';

/** On a terminal (and without --json): bytes read of the file, rows read, rows per second and the time left, on stderr. */
function progressBar(totalBytes: number) {
  const bar = new cliProgress.SingleBar(
    {
      format: 'Importing {bar} {percentage}% | {rows} rows | {rate} rows/s | ETA {eta_formatted}',
      stream: process.stderr,
      hideCursor: true,
      etaBuffer: 50,
    },
    cliProgress.Presets.shades_classic,
  );
  const started = performance.now();
  bar.start(Math.max(totalBytes, 1), 0, { rows: 0, rate: 0 });
  return {
    update({ rows, bytes }: ImportProgress) {
      const seconds = (performance.now() - started) / 1000;
      bar.update(bytes, { rows, rate: seconds > 0 ? Math.round(rows / seconds) : 0 });
    },
    stop: () => bar.stop(),
  };
}

export const importGroup: CommandGroup = {
  clients: command({
    usage: 'portal import clients --workspace W FILE.csv',
    options: { workspace: { type: 'string' } },
    operands: ['FILE.csv'],
    async run(values, { database, json, operands = [] }) {
      const caller = await requireWorkspace(database, values);
      const file = operands[0];
      let size: number;
      try {
        size = statSync(file).size;
      } catch (error) {
        throw errors.badRequest(`Cannot read ${file}: ${(error as Error).message}`, [{ path: 'FILE.csv', message: 'cannot be read' }]);
      }
      const bar = !json && process.stderr.isTTY ? progressBar(size) : undefined;
      let result: Awaited<ReturnType<typeof importClients>>;
      try {
        result = await importClients(database, systemClock, caller.access.workspaceId, createReadStream(file), { onProgress: bar?.update });
      } finally {
        bar?.stop();
      }
      const lines = result.errors.map((e) => `\n  line ${e.line}: ${e.message}`).join('');
      const more = result.truncatedErrors ? `\n  … and more: only the first ${MAX_REPORTED_ERRORS} refused rows are listed.` : '';
      printResult(
        json,
        { ...result },
        `Imported ${file}: ${result.created} created, ${result.skipped} skipped (email already in the workspace), ` +
          `${result.errors.length}${result.truncatedErrors ? '+' : ''} refused.${lines}${more}`,
      );
    },
  }),
};
