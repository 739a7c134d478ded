import { errors } from '../lib/errors.js';
import { isUuid } from '../lib/formats.js';
import { schemaProblems } from '../lib/validate.js';
import { ApiKeyCreate, createApiKey, listApiKeys, revokeApiKey } from '../modules/resources/credentials/index.js';
import { type CommandGroup, UsageError, command, given, requireOption, requireWorkspace } from './command.js';
import { printResult } from './output.js';

export const keysGroup: CommandGroup = {
  list: command({
    usage: 'portal keys list --workspace W',
    options: { workspace: { type: 'string' } },
    async run(values, { database, json }) {
      const caller = await requireWorkspace(database, values);
      // As GET /admin/workspaces/{id}/keys: a prefix to tell keys apart, never a secret (only its hash is stored).
      const data = await listApiKeys(database, caller);
      const lines = data.map(
        (k) =>
          `${k.prefix}…  ${k.id}  ${(k.label ?? '(no label)').padEnd(20)}  ${k.kind === 'app' ? `app ${k.appId}` : 'workspace'}  created ${k.createdAt}${k.revokedAt ? `  revoked ${k.revokedAt}` : ''}`,
      );
      printResult(json, { data }, lines.length > 0 ? lines.join('\n') : 'No key.');
    },
  }),
  create: command({
    usage: 'portal keys create --workspace W [--app APP_ID] [--label L]',
    options: { workspace: { type: 'string' }, app: { type: 'string' }, label: { type: 'string' } },
    async run(values, { database, json }) {
      const caller = await requireWorkspace(database, values);
      const input: ApiKeyCreate = given({ appId: values.app, label: values.label });
      // Malformed options stay usage errors.
      if (schemaProblems(ApiKeyCreate, input).length > 0) throw new UsageError('--app must be a UUID and --label 1 to 100 characters');
      const key = await createApiKey(database, caller, { kind: input.appId ? 'app' : 'workspace', ...input });
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
