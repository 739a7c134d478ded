import { once } from 'node:events';
import { createWriteStream, renameSync, rmSync } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { errors } from '../lib/errors.js';
import { clientsCsv } from '../modules/workflows/client-csv/index.js';
import { type CommandGroup, UsageError, command, requireWorkspace } from './command.js';
import { printResult } from './output.js';

export const exportGroup: CommandGroup = {
  clients: command({
    usage: 'portal export clients --workspace W [--out FILE]',
    options: { workspace: { type: 'string' }, out: { type: 'string' } },
    async run(values, { database, json }) {
      const file = values.out;
      if (json && !file) throw new UsageError('--json needs --out FILE: without it the CSV itself is what is printed');
      const caller = await requireWorkspace(database, values);
      const count = { exported: 0 };
      const chunks = await clientsCsv(database, caller, count);
      if (!file) {
        for await (const chunk of chunks) if (!process.stdout.write(chunk)) await once(process.stdout, 'drain');
        return;
      }
      // Written beside the file and renamed once complete: FILE is never a half export.
      const partial = `${file}.partial`;
      try {
        await pipeline(Readable.from(chunks), createWriteStream(partial));
        renameSync(partial, file);
      } catch (error) {
        rmSync(partial, { force: true });
        // The file system's refusal (no such directory, no permission) is the user's to fix, not a crash.
        const code = (error as { code?: unknown }).code;
        if (typeof code === 'string' && code.startsWith('E')) {
          throw errors.badRequest(`Cannot write ${file}: ${(error as Error).message}`, [{ path: 'out', message: 'cannot be written' }]);
        }
        throw error;
      }
      printResult(json, { exported: count.exported, file }, `Exported ${count.exported} clients to ${file}.`);
    },
  }),
};
