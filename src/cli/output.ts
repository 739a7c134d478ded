import type { Database } from '../db/database.js';
import { type Caller, systemCaller } from '../lib/caller.js';
import { systemClock } from '../lib/clock.js';
import { getWorkspace } from '../modules/workspaces/workspaces.service.js';
/** `--json`: exactly one JSON object on stdout; otherwise a short human summary. */
export function printResult(json: boolean, result: Record<string, unknown>, human: string): void {
  process.stdout.write(json ? `${JSON.stringify(result)}\n` : `${human}\n`);
}

export class UsageError extends Error {}

export function requireOption(values: Record<string, unknown>, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value.length === 0) throw new UsageError(`--${name} is required`);
  return value;
}

/** The system acting on an existing workspace (404 when there is none: ids are text, so a malformed one finds nothing). */
export async function workspaceCaller(database: Database, workspaceId: string): Promise<Caller> {
  const caller = systemCaller(workspaceId, systemClock.now());
  await getWorkspace(database, caller);
  return caller;
}
