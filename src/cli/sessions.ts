import { loadConfig } from '../config.js';
import { validInput } from '../lib/validate.js';
import { createSession, revokeSession, SessionCreate } from '../modules/credentials/index.js';
import { type CommandGroup, UsageError, command, given, requireOption, requireWorkspace } from './command.js';
import { printResult } from './output.js';

export const sessionsGroup: CommandGroup = {
  create: command({
    usage: 'portal sessions create --workspace W --api-key KEY (--client C [--company X] | --internal-user U)',
    options: {
      workspace: { type: 'string' },
      'api-key': { type: 'string' },
      client: { type: 'string' },
      company: { type: 'string' },
      'internal-user': { type: 'string' },
    },
    async run(values, { database, json }) {
      requireOption(values, 'workspace');
      const apiKey = requireOption(values, 'api-key');
      if ((values.client === undefined) === (values['internal-user'] === undefined))
        throw new UsageError('give exactly one of --client and --internal-user');
      if (values.company !== undefined && values.client === undefined) throw new UsageError('--company goes with --client');
      // The body the admin route takes (POST /admin/workspaces/{id}/sessions), checked by the same schema.
      const input = validInput(SessionCreate, {
        apiKey,
        ...given({ clientId: values.client, companyId: values.company, internalUserId: values['internal-user'] }),
      });
      const config = loadConfig();
      const session = await createSession(database, await requireWorkspace(database, values), input, {
        lifetimeSeconds: config.sessionLifetimeSeconds,
        baseUrl: config.portalUrl,
      });
      const expires = new Date(session.expiresAt * 1000).toISOString();
      printResult(json, { ...session }, `Session ${session.tokenId} created (until ${expires}); token for the app:\n${session.token}`);
    },
  }),
  revoke: command({
    usage: 'portal sessions revoke --workspace W --token-id T',
    options: { workspace: { type: 'string' }, 'token-id': { type: 'string' } },
    async run(values, { database, json }) {
      const tokenId = requireOption(values, 'token-id');
      // A malformed or unknown token id: the service answers 404 (Session).
      await revokeSession(database, await requireWorkspace(database, values), tokenId);
      printResult(json, { tokenId, revoked: true }, `Session ${tokenId} revoked.`);
    },
  }),
};
