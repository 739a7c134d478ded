import type { Database } from '../db/database.js';
import { systemClock } from '../lib/clock.js';
import { errors } from '../lib/errors.js';
import { createApiKey, revokeApiKey } from '../modules/api-keys/api-keys.service.js';
import { findWorkspace } from '../modules/workspaces/workspaces.repository.js';
import type { CliValues } from './main.js';
import { UsageError, printResult, requireOption } from './output.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

async function requireWorkspace(database: Database, values: CliValues): Promise<string> {
  const workspaceId = requireOption(values, 'workspace');
  if (!UUID.test(workspaceId) || !(await findWorkspace(database.db, workspaceId))) throw errors.notFound('Workspace');
  return workspaceId;
}

export async function keysCommand(sub: string | undefined, values: CliValues, database: Database, json: boolean) {
  if (sub === 'create') {
    const workspaceId = await requireWorkspace(database, values);
    const appId = values.app;
    if (appId !== undefined && !UUID.test(appId)) throw new UsageError('--app must be a UUID');
    const key = await createApiKey(database.db, workspaceId, { kind: appId ? 'app' : 'workspace', appId }, systemClock);
    const { kind: _kind, ...result } = key;
    printResult(json, result, `${appId ? `App key for ${appId}` : 'Workspace key'} created (shown only now): ${key.apiKey}\nKey id: ${key.apiKeyId}`);
    return;
  }
  if (sub === 'revoke') {
    const workspaceId = await requireWorkspace(database, values);
    const apiKeyId = requireOption(values, 'key-id');
    if (!UUID.test(apiKeyId)) throw errors.notFound('API key');
    await revokeApiKey(database.db, workspaceId, apiKeyId, systemClock);
    printResult(json, { apiKeyId, revoked: true }, `Key ${apiKeyId} revoked.`);
    return;
  }
  throw new UsageError('usage: portal keys create --workspace W [--app APP_ID] | portal keys revoke --workspace W --key-id K');
}
