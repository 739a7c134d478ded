import type { Database } from '../db/database.js';
import { systemCaller } from '../lib/caller.js';
import { systemClock } from '../lib/clock.js';
import { createWorkspace, updateWorkspace } from '../modules/workspaces/workspaces.service.js';
import type { CliValues } from './main.js';
import { UsageError, printResult, requireOption } from './output.js';

const USAGE = 'usage: portal workspaces create --name N [--daily-quota N] | portal workspaces update --workspace W [--name N] [--daily-quota N]';

function dailyQuotaOption(values: CliValues): number | undefined {
  const text = values['daily-quota'];
  if (text === undefined) return undefined;
  const quota = Number(text);
  if (!Number.isInteger(quota) || quota < 0) throw new UsageError('--daily-quota must be a non-negative integer');
  return quota;
}

export async function workspacesCommand(sub: string | undefined, values: CliValues, database: Database, json: boolean) {
  if (sub === 'create') {
    const created = await createWorkspace(database, { name: requireOption(values, 'name'), dailyQuota: dailyQuotaOption(values) }, systemClock.now());
    printResult(
      json,
      { ...created },
      `Workspace ${created.workspaceId} created.\nWorkspace API key (shown only now): ${created.apiKey}\nKey id: ${created.apiKeyId}`,
    );
    return;
  }
  if (sub === 'update') {
    const workspaceId = requireOption(values, 'workspace');
    const dailyQuota = dailyQuotaOption(values);
    if (values.name === undefined && dailyQuota === undefined) throw new UsageError('give --name or --daily-quota to change');
    const updated = await updateWorkspace(database, systemCaller(workspaceId, systemClock.now()), { name: values.name, dailyQuota });
    printResult(json, { workspaceId: updated.id, name: updated.name, dailyQuota: updated.dailyQuota }, `Workspace ${updated.id}: name "${updated.name}", daily quota ${updated.dailyQuota}.`);
    return;
  }
  throw new UsageError(USAGE);
}
