import type { Database } from '../../../db/database.js';
import { listAs } from '../../../db/paging.js';
import { unitOfWork } from '../../../db/unit-of-work.js';
import { type Access, type Caller, assertNamesItself } from '../../../lib/caller.js';
import { isoAt } from '../../../lib/clock.js';
import { type FieldProblem, errors, orNotFound } from '../../../lib/errors.js';
import { isUuid } from '../../../lib/formats.js';
import { newRowId } from '../../../lib/row-id.js';
import { type QueuedEmail, queueEmails } from '../email-outbox/index.js';
import { declaredConfigsOf } from '../installs/index.js';
import type { NotificationSetting } from '../installs/index.js';
import * as repo from './notifications.repository.js';
import type { Notification, NotificationCreate } from './notifications.schemas.js';

/** What sending a notification needs beyond the database: where its links point, and who sends its e-mails. */
export interface NotificationMail {
  portalUrl: string;
  /** Wakes the e-mail delivery after a commit queued e-mails (absent: no SMTP, they stay queued). */
  wake?: () => void;
}

type Surface = 'product' | 'email';
const SURFACE_OF = { inProduct: 'product', email: 'email' } as const satisfies Record<string, Surface>;
const MAX_CTA_PARAMS = 20;

export const listNotifications = listAs(repo.listNotifications);

/** Whether a principal limited to some companies (an internal user's session) sees this party. */
function sees(access: Access, party: repo.Party): boolean {
  if (access.companyIds === null || party.kind === 'internalUser') return true;
  const companies = party.kind === 'company' ? [party.id] : party.companyIds;
  return companies.some((id) => access.companyIds?.includes(id));
}

/** The recipient, as given: exactly one kind (the deprecated `recipientId` names a client or an internal user). */
function recipientOf(input: NotificationCreate, problems: FieldProblem[]) {
  const {
    recipientClientId: clientId,
    recipientInternalUserId: internalUserId,
    recipientCompanyId: companyId,
    recipientId: legacyId,
  } = input;
  if (legacyId !== undefined && (clientId ?? internalUserId ?? companyId) !== undefined) {
    problems.push({
      path: 'body.recipientId',
      message: 'is deprecated: give it alone, or use recipientClientId, recipientInternalUserId or recipientCompanyId',
    });
  } else if (clientId !== undefined && internalUserId !== undefined) {
    problems.push({
      path: 'body.recipientInternalUserId',
      message: 'is a second recipient: give exactly one of recipientClientId, recipientInternalUserId and recipientCompanyId',
    });
  } else if (internalUserId !== undefined && companyId !== undefined) {
    problems.push({ path: 'body.recipientCompanyId', message: 'goes alone or with recipientClientId, not with an internal user' });
  } else if ((clientId ?? internalUserId ?? companyId ?? legacyId) === undefined) {
    problems.push({
      path: 'body.recipientClientId',
      message: 'a recipient is required: recipientClientId, recipientInternalUserId or recipientCompanyId',
    });
  }
  return { clientId, internalUserId, companyId, legacyId };
}

/** `ctaParams` as stored: an object of strings (a query string is parsed into one). */
function ctaParamsOf(given: string | Record<string, string> | undefined, path: string, problems: FieldProblem[]) {
  if (given === undefined) return undefined;
  const params = typeof given === 'string' ? Object.fromEntries(new URLSearchParams(given)) : given;
  if (Object.keys(params).length > MAX_CTA_PARAMS) problems.push({ path, message: `has more than ${MAX_CTA_PARAMS} parameters` });
  return params;
}

/** The setting named by `notificationSettingId`, of the calling app's install (or, for a workspace key, of `installId`). */
async function settingOf(database: Database, caller: Caller, input: NotificationCreate, problems: FieldProblem[]) {
  const settingId = input.notificationSettingId;
  const { installId } = input;
  if (settingId === undefined) {
    if (installId !== undefined) problems.push({ path: 'body.installId', message: 'is used only with notificationSettingId' });
    return undefined;
  }
  const principal = caller.principal;
  const appId = principal.kind === 'system' || principal.kind === 'workspaceKey' ? null : (principal.appId?.toLowerCase() ?? null);
  if (appId === null && installId === undefined) {
    problems.push({ path: 'body.installId', message: 'is required with notificationSettingId when the caller is not an app' });
    return undefined;
  }
  const installs = await declaredConfigsOf(
    database.db,
    caller.access,
    installId !== undefined ? { installId } : { appId: appId as string },
  );
  if (installId !== undefined && appId !== null && installs.length > 0 && installs[0].app_id !== appId) {
    problems.push({ path: 'body.installId', message: 'is not an install of the calling app' });
    return undefined;
  }
  if (installs.length === 0 && installId !== undefined) {
    problems.push({ path: 'body.installId', message: 'is not an install of this workspace with notification settings' });
    return undefined;
  }
  for (const install of installs) {
    const { notifications } = JSON.parse(install.notification_config as string) as { notifications: NotificationSetting[] };
    const setting = notifications.find((s) => s.id === settingId);
    if (setting) return { installId: install.id, appId: install.app_id ?? '', setting };
  }
  problems.push({
    path: 'body.notificationSettingId',
    message:
      installId !== undefined
        ? 'is not a notification setting of this install'
        : 'is not a notification setting of the calling app’s installs',
  });
  return undefined;
}

/** The e-mail's plain text: header, body, and the call to action as a link into the portal. */
function emailText(id: string, email: repo.StoredEmail, mail: NotificationMail): string {
  const query = email.ctaParams && Object.keys(email.ctaParams).length > 0 ? `?${new URLSearchParams(email.ctaParams)}` : '';
  const link = `${mail.portalUrl}/notifications/${id}${query}`;
  return [email.header, email.body, `${email.title || 'Open'}: ${link}`].filter((part) => part).join('\n\n');
}

/**
 * Creates a notification (contract §3): checks the sender, the recipient and the setting, applies the
 * recipient's preferences to the targets (an internal user's per setting; anyone's e-mails turned off), and
 * stores it with its e-mails queued, in one unit of work. Undefined (the 202) when the preferences disable
 * every requested target: nothing is stored.
 */
export async function createNotification(
  database: Database,
  caller: Caller,
  input: NotificationCreate,
  mail: NotificationMail,
): Promise<Notification | undefined> {
  // A person sends as its own user (lib/caller.ts); keys and bearer tokens (apps acting for their users) name any sender.
  const senderId = input.senderId;
  assertNamesItself(caller, 'body.senderId', senderId);
  const problems: FieldProblem[] = [];
  const recipient = recipientOf(input, problems);
  const recipientId = recipient.clientId ?? recipient.internalUserId ?? recipient.legacyId ?? recipient.companyId ?? '';
  const [parties, found] = await Promise.all([
    repo.findParties(database.db, caller.access, senderId, recipientId),
    settingOf(database, caller, input, problems),
  ]);
  const party = (id: string, kinds: readonly string[]) =>
    parties.find((p) => p.id === id && kinds.includes(p.kind) && sees(caller.access, p));

  const sender = party(senderId, ['client', 'internalUser', 'company']);
  let senderCompanyId = input.senderCompanyId ?? null;
  if (!sender) problems.push({ path: 'body.senderId', message: 'is not a client, internal user or company of this workspace' });
  else if (sender.kind !== 'client' && senderCompanyId !== null)
    problems.push({ path: 'body.senderCompanyId', message: 'is given only when the sender is a client' });
  else if (sender.kind === 'client') {
    if (senderCompanyId === null && sender.companyIds.length > 1)
      problems.push({ path: 'body.senderCompanyId', message: 'is required: the sending client belongs to several companies' });
    else if (senderCompanyId !== null && !sender.companyIds.includes(senderCompanyId))
      problems.push({ path: 'body.senderCompanyId', message: 'is not a company of the sending client' });
    senderCompanyId ??= sender.companyIds[0] ?? null;
  }

  // The recipient's columns: a client in one of its companies, an internal user, or a company as a whole.
  let to: { clientId: string | null; internalUserId: string | null; companyId: string | null; email: string | null } | undefined;
  if (recipient.legacyId !== undefined && recipient.clientId === undefined && recipient.companyId === undefined) {
    const legacy = party(recipient.legacyId, ['client', 'internalUser']);
    if (!legacy) problems.push({ path: 'body.recipientId', message: 'is not a client or internal user of this workspace' });
    else if (legacy.kind === 'internalUser') recipient.internalUserId = legacy.id;
    else recipient.clientId = legacy.id;
  }
  if (recipient.clientId !== undefined) {
    const client = party(recipient.clientId, ['client']);
    const companyId = recipient.companyId ?? (client?.companyIds.length === 1 ? client.companyIds[0] : undefined);
    if (!client) problems.push({ path: 'body.recipientClientId', message: 'is not a client of this workspace' });
    else if (recipient.companyId !== undefined && !client.companyIds.includes(recipient.companyId))
      problems.push({ path: 'body.recipientCompanyId', message: 'is not a company of the recipient client' });
    else if (companyId === undefined)
      problems.push({ path: 'body.recipientCompanyId', message: 'is required: the recipient client belongs to several companies' });
    else to = { clientId: client.id, internalUserId: null, companyId, email: client.email };
  } else if (recipient.internalUserId !== undefined) {
    const user = party(recipient.internalUserId, ['internalUser']);
    if (!user) problems.push({ path: 'body.recipientInternalUserId', message: 'is not an internal user of this workspace' });
    else to = { clientId: null, internalUserId: user.id, companyId: null, email: user.email };
  } else if (recipient.companyId !== undefined) {
    const company = party(recipient.companyId, ['company']);
    if (!company) problems.push({ path: 'body.recipientCompanyId', message: 'is not a company of this workspace' });
    else to = { clientId: null, internalUserId: null, companyId: company.id, email: null };
  }

  // The targets: each within the setting's surfaces; then only those the recipient's preferences enable.
  const given = input.deliveryTargets;
  const inProductCta = ctaParamsOf(given.inProduct?.ctaParams, 'body.deliveryTargets.inProduct.ctaParams', problems);
  const emailCta = ctaParamsOf(given.email?.ctaParams, 'body.deliveryTargets.email.ctaParams', problems);
  const requested = (['inProduct', 'email'] as const).filter((target) => given[target] !== undefined);
  if (requested.length === 0) problems.push({ path: 'body.deliveryTargets', message: 'needs at least one of inProduct and email' });
  if (found) {
    for (const target of requested) {
      if (!found.setting.surfaces.includes(SURFACE_OF[target]))
        problems.push({
          path: `body.deliveryTargets.${target}`,
          message: `is not a surface of notification setting "${found.setting.id}" (${found.setting.surfaces.join(', ')})`,
        });
    }
  }
  if (problems.length > 0 || !sender || !to) throw errors.invalidFields(problems);

  let targets = requested;
  if (found && to.internalUserId !== null) {
    const chosen = await repo.findPreference(database.db, to.internalUserId, found.installId, found.setting.id);
    const enabled = (surface: Surface) => (chosen?.[surface] == null ? found.setting.default[surface] : chosen[surface] === 1);
    targets = targets.filter((target) => enabled(SURFACE_OF[target]));
  }
  // A person who turned notification e-mails off (its account page) gets none, whatever the setting says; a company's
  // clients who did are left out of its e-mails (companyClientEmails).
  const person = to.clientId ?? to.internalUserId;
  if (person !== null && party(person, ['client', 'internalUser'])?.emailNotifications === false)
    targets = targets.filter((target) => target !== 'email');
  if (targets.length === 0) return undefined;

  const at = isoAt(caller.actor.at);
  const id = newRowId();
  const inProduct: repo.StoredInProduct | null =
    targets.includes('inProduct') && given.inProduct
      ? { title: given.inProduct.title, body: given.inProduct.body, ctaParams: inProductCta }
      : null;
  const email: repo.StoredEmail | null =
    targets.includes('email') && given.email
      ? {
          subject: given.email.subject || given.inProduct?.title || 'New notification',
          header: given.email.header,
          body: given.email.body,
          title: given.email.title,
          ctaParams: emailCta,
        }
      : null;
  const principal = caller.principal;
  const callerAppId = principal.kind === 'system' || principal.kind === 'workspaceKey' ? null : principal.appId;
  return unitOfWork(database, async (work) => {
    let emails: QueuedEmail[] = [];
    if (email) {
      const addresses = to.email !== null ? [to.email] : await repo.companyClientEmails(work.db, caller.access, to.companyId as string);
      const text = emailText(id, email, mail);
      emails = addresses.map((address) => ({ notificationId: id, to: address, subject: email.subject, text }));
      queueEmails(work, caller.access, emails, at);
      if (mail.wake && emails.length > 0) work.onCommit(mail.wake);
    }
    return repo.insertNotification(work, caller.access, {
      id,
      appId: callerAppId?.toLowerCase() ?? found?.appId ?? '',
      installId: found?.installId ?? null,
      settingId: found?.setting.id ?? null,
      sender: { id: sender.id, kind: sender.kind, companyId: senderCompanyId },
      to,
      inProduct,
      email,
      at,
    });
  });
}

/** Marks a notification read or unread (in product); a client session only its own. */
/**
 * Where a notification e-mail's link (`PORTAL_URL/notifications/{id}?<ctaParams>`) lands: the notification's page in
 * its workspace's portal (sign-in first when needed), the call to action's parameters kept. Undefined for an id no
 * notification has (a malformed one, a deleted notification's).
 */
export async function notificationLanding(database: Database, id: string, query: string): Promise<string | undefined> {
  if (!isUuid(id)) return undefined;
  const workspaceId = await repo.findNotificationWorkspace(database.db, id);
  return workspaceId && `/portal/${workspaceId}/notifications/${id.toLowerCase()}${query}`;
}

export async function markNotification(database: Database, caller: Caller, id: string, isRead: boolean): Promise<Notification> {
  return unitOfWork(
    database,
    async (work) => {
      const before = orNotFound(await repo.findNotification(work.db, caller.access, id), 'Notification');
      return repo.setRead(work, caller.access, before, isRead, isoAt(caller.actor.at));
    },
    { transaction: true },
  );
}

export async function deleteNotification(database: Database, caller: Caller, id: string) {
  return unitOfWork(
    database,
    async (work) => {
      const notification = orNotFound(await repo.findNotification(work.db, caller.access, id), 'Notification');
      repo.deleteNotification(work, caller.access, notification.id);
      return { id: notification.id, object: 'notification', deleted: true as const };
    },
    { transaction: true },
  );
}
