import { loadConfig } from '../config.js';
import type { Database } from '../db/database.js';
import { readServerUrl } from '../db/server-settings.js';
import { validInput } from '../lib/validate.js';
import { createSession, revokeSession, SessionCreate } from '../modules/resources/credentials/index.js';
import { type CommandGroup, UsageError, command, given, requireOption, requireWorkspace } from './command.js';
import { printResult } from './output.js';

/**
 * The address a token sends the SDK to: --base-url, else the one the last server started on this database
 * recorded (its PORTAL_URL, or where it listens), never this command's own environment, which may not be the
 * server's. With neither, a usage error saying how to give one.
 */
export async function sessionBaseUrl(database: Database, given: string | undefined): Promise<string> {
  if (given !== undefined) {
    if (!/^https?:\/\/[^\s/]+(\/[^\s]*)?$/.test(given)) throw new UsageError(`--base-url must be an http(s) URL (got "${given}")`);
    return given.replace(/\/+$/, '');
  }
  const recorded = await readServerUrl(database);
  if (recorded) return recorded;
  throw new UsageError(
    'no server has started on this database yet, so the address a token sends the SDK to is unknown: start the server ' +
      '(npm start), or give --base-url http://host:port',
  );
}

export const sessionsGroup: CommandGroup = {
  create: command({
    usage: 'portal sessions create --workspace W --api-key KEY (--client C [--company X] | --internal-user U) [--base-url URL]',
    options: {
      workspace: { type: 'string' },
      'api-key': { type: 'string' },
      client: { type: 'string' },
      company: { type: 'string' },
      'internal-user': { type: 'string' },
      'base-url': { type: 'string' },
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
      const caller = await requireWorkspace(database, values);
      const baseUrl = await sessionBaseUrl(database, values['base-url']);
      const config = loadConfig();
      const session = await createSession(database, caller, input, {
        lifetimeSeconds: config.sessionLifetimeSeconds,
        baseUrl,
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
