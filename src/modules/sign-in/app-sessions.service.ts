import type { Database } from '../../db/database.js';
import { unitOfWork } from '../../db/unit-of-work.js';
import { type Caller, systemCaller } from '../../lib/caller.js';
import { isoAt } from '../../lib/clock.js';
import { errors } from '../../lib/errors.js';
import type { SecretBox } from '../../lib/secret-box.js';
import { createSession, verifyApiKey } from '../credentials/index.js';
import { getInstall } from '../installs/index.js';
import type { ActiveSession } from './sign-in.service.js';
import * as repo from './sign-in.repository.js';

/**
 * The operator gives the portal an installed app's key, so that signed-in people opening the app get the session
 * token the hosted portal hands app iframes (a token is encrypted with the key itself: only a hash of a key is kept
 * otherwise, so this one is stored sealed). It must be an active app key of the workspace, for the install's app.
 */
export async function registerAppKey(database: Database, box: SecretBox, caller: Caller, installId: string, apiKey: string) {
  const install = await getInstall(database, caller, installId);
  const key = await verifyApiKey(database.db, apiKey);
  if (!install.appId) throw errors.invalidField('params.installId', 'is not an app install (embed, link and manual installs have no app)');
  if (!key || key.workspace_id !== caller.access.workspaceId || key.kind !== 'app' || key.app_id !== install.appId)
    throw errors.invalidField('body.apiKey', `is not an active app key of this workspace for the install's app (${install.appId})`);
  await unitOfWork(database, async (work) =>
    repo.saveAppKey(work, {
      installId: install.id,
      workspaceId: caller.access.workspaceId,
      apiKeyId: key.id,
      sealedKey: box.seal(apiKey),
      at: isoAt(caller.actor.at),
    }),
  );
  return { installId: install.id, apiKeyId: key.id };
}

/**
 * A signed-in person opens an installed app: a session token of the app for that person (a client in its primary
 * company, or an internal user), as `POST /admin/workspaces/{id}/sessions` mints, to hand the app's iframe.
 */
export async function openApp(
  database: Database,
  box: SecretBox,
  session: ActiveSession,
  installId: string,
  settings: { lifetimeSeconds: number; baseUrl: string; at: number },
) {
  const { person } = session;
  const caller = systemCaller(person.workspaceId, settings.at);
  await getInstall(database, caller, installId); // 404 for another workspace's or an unknown install
  const key = await repo.findAppKey(database.db, person.workspaceId, installId);
  if (!key) throw errors.conflict('This app cannot be opened from the portal yet: the operator has not given it an app key.');
  const who = person.type === 'client' ? { clientId: person.id, companyId: person.companyId ?? undefined } : { internalUserId: person.id };
  return createSession(database, caller, { apiKey: box.open(key.sealed_key), ...who }, settings);
}
