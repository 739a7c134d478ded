import type { Database } from '../../../db/database.js';
import { unitOfWork } from '../../../db/unit-of-work.js';
import { type Caller, namesItself } from '../../../lib/caller.js';
import { isoAt } from '../../../lib/clock.js';
import { type FieldProblem, errors } from '../../../lib/errors.js';
import { declaredNotificationConfigs } from '../installs/index.js';
import type { NotificationSetting } from '../installs/index.js';
import { getInternalUser } from '../internal-users/index.js';
import * as repo from './notification-preferences.repository.js';
import type { NotificationPreferenceUpdate, NotificationPreferences } from './notification-preferences.schemas.js';

/**
 * A person (an app's session, or signed in) changes its own preferences only (changing another's is acting
 * as them, lib/caller.ts); it may read a colleague's, as the route's policy lets staff read the directory.
 * Keys and tokens: anyone's.
 */
function assertOwnPreferences(caller: Caller, internalUserId: string) {
  if (!namesItself(caller, internalUserId)) throw errors.forbidden('An internal user may change only its own notification preferences.');
}

async function declaredSettings(database: Database, caller: Caller) {
  const installs = await declaredNotificationConfigs(database.db, caller.access);
  return installs.flatMap((install) =>
    (JSON.parse(install.notification_config ?? '{"notifications":[]}') as { notifications: NotificationSetting[] }).notifications.map(
      (setting) => ({
        installId: install.id,
        setting,
      }),
    ),
  );
}

/** Every declared setting, with what the user chose; a surface never chosen follows the setting's default. */
export async function getNotificationPreferences(
  database: Database,
  caller: Caller,
  internalUserId: string,
): Promise<NotificationPreferences> {
  const user = await getInternalUser(database, caller, internalUserId);
  const [settings, chosen] = await Promise.all([
    declaredSettings(database, caller),
    repo.chosenPreferences(database.db, caller.access, user.id),
  ]);
  const byKey = new Map(chosen.map((row) => [`${row.install_id}\n${row.setting_id}`, row]));
  return {
    data: settings.map(({ installId, setting }) => {
      const row = byKey.get(`${installId}\n${setting.id}`);
      return {
        installId,
        notificationSettingId: setting.id,
        email: row?.email == null ? setting.default.email : row.email === 1,
        product: row?.product == null ? setting.default.product : row.product === 1,
        isDefault: row === undefined,
      };
    }),
  };
}

/** Sets one setting's surfaces for the user (those given; the others keep their state); answers the whole list. */
export async function setNotificationPreference(
  database: Database,
  caller: Caller,
  internalUserId: string,
  input: NotificationPreferenceUpdate,
): Promise<NotificationPreferences> {
  assertOwnPreferences(caller, internalUserId);
  const user = await getInternalUser(database, caller, internalUserId);
  const settings = await declaredSettings(database, caller);
  const problems: FieldProblem[] = [];
  const ofInstall = settings.filter((s) => s.installId === input.installId);
  const found = ofInstall.find((s) => s.setting.id === input.notificationSettingId);
  if (ofInstall.length === 0)
    problems.push({ path: 'body.installId', message: 'is not an install of this workspace with notification settings' });
  else if (!found) problems.push({ path: 'body.notificationSettingId', message: 'is not a notification setting of this install' });
  for (const surface of ['email', 'product'] as const) {
    if (found && input[surface] !== undefined && !found.setting.surfaces.includes(surface)) {
      problems.push({ path: `body.${surface}`, message: `is not a surface of this setting (${found.setting.surfaces.join(', ')})` });
    }
  }
  if (problems.length > 0 || !found) throw errors.invalidFields(problems);
  await unitOfWork(database, async (work) =>
    repo.upsertPreference(work, caller.access, {
      internalUserId: user.id,
      installId: found.installId,
      settingId: found.setting.id,
      email: input.email,
      product: input.product,
      at: isoAt(caller.actor.at),
    }),
  );
  return getNotificationPreferences(database, caller, user.id);
}
