import type { Database } from '../db/database.js';
import { systemClock } from '../lib/clock.js';
import { createWorkspace } from '../modules/workspaces/workspaces.service.js';
import type { CliValues } from './main.js';
import { UsageError, printResult, requireOption } from './output.js';

export async function workspacesCommand(sub: string | undefined, values: CliValues, database: Database, json: boolean) {
  if (sub !== 'create') throw new UsageError('usage: portal workspaces create --name N [--daily-quota N]');
  const quotaText = values['daily-quota'];
  const dailyQuota = quotaText === undefined ? undefined : Number(quotaText);
  if (dailyQuota !== undefined && (!Number.isInteger(dailyQuota) || dailyQuota < 0)) {
    throw new UsageError('--daily-quota must be a non-negative integer');
  }
  const created = await createWorkspace(database.db, { name: requireOption(values, 'name'), dailyQuota }, systemClock);
  printResult(
    json,
    { ...created },
    `Workspace ${created.workspaceId} created.\nWorkspace API key (shown only now): ${created.apiKey}\nKey id: ${created.apiKeyId}`,
  );
}
