import type { Database } from '../../../db/database.js';
import { unitOfWork } from '../../../db/unit-of-work.js';
import { type Caller, type Origin, workspaceAccess } from '../../../lib/caller.js';
import { isoAt } from '../../../lib/clock.js';
import { errors } from '../../../lib/errors.js';
import type { SecretBox } from '../../../lib/secret-box.js';
import { createSession, findActiveApiKey, verifyApiKey } from '../../resources/credentials/index.js';
import { getInstall } from '../../resources/installs/index.js';
import type { ActiveSession } from './sign-in.service.js';
import * as repo from './sign-in.repository.js';
import { personCaller } from './sign-in.people.js';

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
    repo.saveAppKey(work, caller.access, {
      installId: install.id,
      apiKeyId: key.id,
      sealedKey: box.seal(apiKey),
      at: isoAt(caller.actor.at),
    }),
  );
  return { installId: install.id, apiKeyId: key.id };
}

/**
 * A signed-in person opens an installed app: a session token of the app for that person (a client in its primary
 * company, or an internal user), as `POST /admin/workspaces/{id}/sessions` mints, to hand the app's iframe. The
 * install must be one the person sees through the API (a client: published ones only, 404 for a draft). The session
 * ends with the sign-in session that opened it, and its expiry is on the workspace's clock (a sandbox's test clock),
 * the one it is checked against. Recorded as the person's act: sessionTokenMinted.
 */
export async function openApp(
  database: Database,
  box: SecretBox,
  session: ActiveSession,
  installId: string,
  settings: { lifetimeSeconds: number; baseUrl: string; at: number; origin: Origin },
) {
  const { person } = session;
  // What the person sees through the API: a client its own companies' published installs (installs.repository).
  const caller = await personCaller(database.db, person, settings.origin, settings.at);
  const client = person.type === 'client';
  await getInstall(database, caller, installId); // 404 for another workspace's, an unknown or (for a client) a draft install
  const access = workspaceAccess(person.workspaceId);
  const key = await repo.findAppKey(database.db, access, installId);
  // A key revoked since is none (the credentials module's table, read through its face).
  if (!key || !(await findActiveApiKey(database.db, access, key.apiKeyId)))
    throw errors.conflict('This app cannot be opened from the portal yet: the operator has not given it an app key.');
  const who = client ? { clientId: person.id, companyId: person.companyId ?? undefined } : { internalUserId: person.id };
  // The mint reads the person as the system does (a client's other companies too); the actor stays the person.
  const minter: Caller = { ...caller, access: workspaceAccess(person.workspaceId) };
  const signInSession = {
    id: session.id,
    expiresAt: Date.parse(session.expiresAt) + (caller.actor.at - settings.at) /* the workspace clock's offset */,
  };
  return createSession(database, minter, { apiKey: box.open(key.sealedKey), ...who }, { ...settings, signInSession });
}
