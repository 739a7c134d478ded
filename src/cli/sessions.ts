import { loadConfig } from '../config.js';
import type { Database } from '../db/database.js';
import { systemCaller } from '../lib/caller.js';
import { systemClock } from '../lib/clock.js';
import { createSession, revokeSession } from '../modules/sessions/sessions.service.js';
import type { CliValues } from './main.js';
import { UsageError, printResult, requireOption } from './output.js';

const USAGE =
  'usage: portal sessions create --workspace W --api-key KEY (--client C [--company X] | --internal-user U) | portal sessions revoke --workspace W --token-id T';

export async function sessionsCommand(sub: string | undefined, values: CliValues, database: Database, json: boolean) {
  if (sub === 'create') {
    const workspaceId = requireOption(values, 'workspace');
    const apiKey = requireOption(values, 'api-key');
    const clientId = values.client;
    const internalUserId = values['internal-user'];
    if ((clientId === undefined) === (internalUserId === undefined)) throw new UsageError('give exactly one of --client and --internal-user');
    if (values.company !== undefined && clientId === undefined) throw new UsageError('--company goes with --client');
    const caller = systemCaller(workspaceId.toLowerCase(), systemClock.now());
    const session = await createSession(database, caller, { apiKey, clientId, companyId: values.company, internalUserId }, loadConfig().sessionLifetimeSeconds);
    const expires = new Date(session.expiresAt * 1000).toISOString();
    printResult(json, { ...session }, `Session ${session.tokenId} created (until ${expires}); token for the app:\n${session.token}`);
    return;
  }
  if (sub === 'revoke') {
    const workspaceId = requireOption(values, 'workspace');
    const tokenId = requireOption(values, 'token-id');
    await revokeSession(database, systemCaller(workspaceId.toLowerCase(), systemClock.now()), tokenId);
    printResult(json, { tokenId: tokenId.toLowerCase(), revoked: true }, `Session ${tokenId} revoked.`);
    return;
  }
  throw new UsageError(USAGE);
}
