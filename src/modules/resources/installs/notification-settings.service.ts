import { randomUUID } from 'node:crypto';
import type { Database } from '../../../db/database.js';
import type { Caller } from '../../../lib/caller.js';
import { isoAt } from '../../../lib/clock.js';
import { type FieldProblem, errors, orNotFound } from '../../../lib/errors.js';
import * as repo from './installs.repository.js';
import type {
  NotificationSetting,
  NotificationSettings,
  NotificationSettingsCreate,
  NotificationSettingsPatch,
} from './notification-settings.schemas.js';

/** As stored in installs.notification_config (internal-only: answered only through these routes). */
type Stored = Omit<NotificationSettings, 'object'>;

const MAX_SETTINGS = 50;
const NOT_DECLARED = { notifications: [] } satisfies Stored;

const answer = (stored: Stored): NotificationSettings => ({ object: 'notificationSettings', ...stored });

const defaultsOf = (given: { email?: boolean; product?: boolean } | undefined) => ({
  email: given?.email === true,
  product: given?.product === true,
});

async function storedOf(database: Database, caller: Caller, installId: string): Promise<{ raw: string | null; stored: Stored }> {
  const found = orNotFound(await repo.findNotificationConfig(database.db, caller.access, installId), 'Install');
  return { raw: found.config, stored: found.config === null ? NOT_DECLARED : (JSON.parse(found.config) as Stored) };
}

/** An app key (its tokens and sessions too) changes only its own app's installs; a workspace key any. */
async function assertMayChange(database: Database, caller: Caller, installId: string) {
  const principal = caller.principal;
  if (principal.kind === 'system' || principal.kind === 'workspaceKey') return;
  const install = await repo.findInstall(database.db, caller.access, installId);
  if (install && (principal.appId === null || install.appId !== principal.appId.toLowerCase())) {
    throw errors.forbidden('An app may change only the notification settings of its own installs.');
  }
}

export async function getNotificationSettings(database: Database, caller: Caller, installId: string): Promise<NotificationSettings> {
  return answer((await storedOf(database, caller, installId)).stored);
}

/** Ids unique within the install: each repeated one named. */
function duplicateIds(settings: readonly NotificationSetting[], pathOf: (index: number) => string): FieldProblem[] {
  const seen = new Set<string>();
  return settings.flatMap((setting, index) => {
    if (!seen.has(setting.id)) {
      seen.add(setting.id);
      return [];
    }
    return [{ path: pathOf(index), message: `repeats the id "${setting.id}"` }];
  });
}

/** Writes the new configuration if nobody changed it meanwhile; a change that raced is a 409 (retry it). */
async function save(
  database: Database,
  caller: Caller,
  installId: string,
  raw: string | null,
  next: Stored,
): Promise<NotificationSettings> {
  const swapped = await repo.swapNotificationConfig(
    database.db,
    caller.access,
    installId,
    raw,
    JSON.stringify(next),
    isoAt(caller.actor.at),
  );
  if (!swapped) throw errors.conflict('The notification settings changed meanwhile; read them again and retry.');
  return answer(next);
}

export async function declareNotificationSettings(
  database: Database,
  caller: Caller,
  installId: string,
  input: NotificationSettingsCreate,
): Promise<NotificationSettings> {
  const { raw } = await storedOf(database, caller, installId);
  await assertMayChange(database, caller, installId);
  if (raw !== null) throw errors.conflict('Notification settings are already declared for this install; change them with PATCH.');
  const notifications = input.notifications.map((s) => ({
    id: s.id ?? randomUUID(),
    label: s.label,
    surfaces: s.surfaces,
    default: defaultsOf(s.default),
  }));
  const problems = duplicateIds(notifications, (index) => `body.notifications.${index}.id`);
  if (problems.length > 0) throw errors.invalidFields(problems);
  return save(database, caller, installId, raw, { ...(input.actionLabel ? { actionLabel: input.actionLabel } : {}), notifications });
}

/** Applies the deltas (the specification's three rules) and the action label; every bad delta named in one 400. */
export async function changeNotificationSettings(
  database: Database,
  caller: Caller,
  installId: string,
  input: NotificationSettingsPatch,
): Promise<NotificationSettings> {
  const { raw, stored } = await storedOf(database, caller, installId);
  await assertMayChange(database, caller, installId);
  if (raw === null) throw errors.notFound('Notification settings');
  const problems: FieldProblem[] = [];
  let notifications = [...stored.notifications];
  (input.notifications ?? []).forEach((delta, index) => {
    const path = `body.notifications.${index}`;
    if (delta.id === undefined) {
      if (delta.label === undefined) problems.push({ path: `${path}.label`, message: 'is required to add a setting' });
      if (delta.surfaces === undefined) problems.push({ path: `${path}.surfaces`, message: 'is required to add a setting' });
      if (delta.label !== undefined && delta.surfaces !== undefined) {
        notifications.push({ id: randomUUID(), label: delta.label, surfaces: delta.surfaces, default: defaultsOf(delta.default) });
      }
      return;
    }
    const at = notifications.findIndex((s) => s.id === delta.id);
    if (at === -1) {
      problems.push({ path: `${path}.id`, message: 'is not a notification setting of this install' });
      return;
    }
    const { id, ...fields } = delta;
    if (Object.keys(fields).length === 0) {
      notifications = notifications.filter((s) => s.id !== id);
      return;
    }
    const current = notifications[at];
    notifications[at] = {
      ...current,
      ...(fields.label !== undefined ? { label: fields.label } : {}),
      ...(fields.surfaces !== undefined ? { surfaces: fields.surfaces } : {}),
      ...(fields.default !== undefined ? { default: defaultsOf(fields.default) } : {}),
    };
  });
  if (notifications.length > MAX_SETTINGS)
    problems.push({ path: 'body.notifications', message: `would leave more than ${MAX_SETTINGS} settings` });
  if (problems.length > 0) throw errors.invalidFields(problems);
  const label = input.actionLabel === undefined ? stored.actionLabel : 'verb' in input.actionLabel ? input.actionLabel : undefined;
  return save(database, caller, installId, raw, { ...(label ? { actionLabel: label } : {}), notifications });
}
