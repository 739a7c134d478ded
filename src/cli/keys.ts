import { errors } from '../lib/errors.js';
import { isUuid, schemaProblems } from '../lib/validate.js';
import { ApiKeyCreate } from '../modules/api-keys/api-keys.schemas.js';
import { createApiKey, revokeApiKey } from '../modules/api-keys/api-keys.service.js';
import { type CommandGroup, UsageError, command, requireOption, requireWorkspace } from './command.js';
import { printResult } from './output.js';

export const keysGroup: CommandGroup = {
  create: command({
    usage: 'portal keys create --workspace W [--app APP_ID]',
    options: { workspace: { type: 'string' }, app: { type: 'string' } },
    async run(values, { database, json }) {
      const caller = await requireWorkspace(database, values);
      const input: ApiKeyCreate = values.app === undefined ? {} : { appId: values.app };
      // --app is the only field: a malformed one stays a usage error.
      if (schemaProblems(ApiKeyCreate, input).length > 0) throw new UsageError('--app must be a UUID');
      const key = await createApiKey(database, caller, { kind: input.appId ? 'app' : 'workspace', appId: input.appId });
      const { kind: _kind, ...result } = key;
      printResult(
        json,
        result,
        `${input.appId ? `App key for ${input.appId}` : 'Workspace key'} created (shown only now): ${key.apiKey}\nKey id: ${key.apiKeyId}`,
      );
    },
  }),
  revoke: command({
    usage: 'portal keys revoke --workspace W --key-id K',
    options: { workspace: { type: 'string' }, 'key-id': { type: 'string' } },
    async run(values, { database, json }) {
      const caller = await requireWorkspace(database, values);
      const apiKeyId = requireOption(values, 'key-id');
      if (!isUuid(apiKeyId)) throw errors.notFound('API key');
      await revokeApiKey(database, caller, apiKeyId);
      printResult(json, { apiKeyId, revoked: true }, `Key ${apiKeyId} revoked.`);
    },
  }),
};
