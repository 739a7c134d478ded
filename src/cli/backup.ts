import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { copySqliteInto } from '../db/monitoring.js';
import { UsageError, command, requireOption } from './command.js';
import { printResult } from './output.js';

/**
 * `portal backup --out FILE`: a consistent copy of the SQLite database while the server runs
 * (`VACUUM INTO`: one read transaction, so every commit is in the copy or none of it, the WAL's included).
 * PostgreSQL has pg_dump for this.
 */
export const backupCommand = command({
  usage: 'portal backup --out FILE',
  options: { out: { type: 'string' } },
  async run(values, { database, json }) {
    const file = resolve(requireOption(values, 'out'));
    if (database.dialect !== 'sqlite') throw new UsageError('portal backup copies a SQLite database; for PostgreSQL use pg_dump');
    if (existsSync(file)) throw new UsageError(`${file} exists: name a new file`);
    await copySqliteInto(database, file);
    const bytes = statSync(file).size;
    printResult(json, { file, bytes }, `Backed up to ${file} (${bytes} bytes).`);
  },
});
