import type { Database } from '../db/database.js';
import { errors } from '../lib/errors.js';
import { createApiKey, revokeApiKey } from '../modules/api-keys/api-keys.service.js';
import type { CliValues } from './main.js';
import { UsageError, printResult, requireOption, workspaceCaller } from './output.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const requireWorkspace = (database: Database, values: CliValues) => workspaceCaller(database, requireOption(values, 'workspace'));

export async function keysCommand(sub: string | undefined, values: CliValues, database: Database, json: boolean) {
  if (sub === 'create') {
    const caller = await requireWorkspace(database, values);
    const appId = values.app;
    if (appId !== undefined && !UUID.test(appId)) throw new UsageError('--app must be a UUID');
    const key = await createApiKey(database, caller, { kind: appId ? 'app' : 'workspace', appId });
    const { kind: _kind, ...result } = key;
    printResult(json, result, `${appId ? `App key for ${appId}` : 'Workspace key'} created (shown only now): ${key.apiKey}\nKey id: ${key.apiKeyId}`);
    return;
  }
  if (sub === 'revoke') {
    const caller = await requireWorkspace(database, values);
    const apiKeyId = requireOption(values, 'key-id');
    if (!UUID.test(apiKeyId)) throw errors.notFound('API key');
    await revokeApiKey(database, caller, apiKeyId);
    printResult(json, { apiKeyId, revoked: true }, `Key ${apiKeyId} revoked.`);
    return;
  }
  throw new UsageError('usage: portal keys create --workspace W [--app APP_ID] | portal keys revoke --workspace W --key-id K');
}
