import { type ExpressionBuilder, type Kysely, sql } from 'kysely';
import { type Page, type PageTokens, fetchPage, pageScope } from '../../../db/paging.js';
import { type FullRow, preparedQuery, preparedWrite } from '../../../db/prepared.js';
import { nonEmpty, parseObject, splitIds } from '../../../db/rows.js';
import type { DB, NotificationsTable, SenderType } from '../../../db/schema.js';
import type { UnitOfWork } from '../../../db/unit-of-work.js';
import type { Access } from '../../../lib/caller.js';
import type { Notification, NotificationListQuery } from './notifications.schemas.js';

/** Notifications' storage: targets are JSON text; `is_read` the in-product read state. */

type InProduct = NonNullable<Notification['deliveryTargets']['inProduct']>;
export type StoredInProduct = Omit<InProduct, 'isRead'>;
export type StoredEmail = NonNullable<Notification['deliveryTargets']['email']>;

function toNotification(row: NotificationsTable): Notification {
  const deliveryTargets: Notification['deliveryTargets'] = {};
  if (row.in_product !== null) deliveryTargets.inProduct = { ...parseObject<StoredInProduct>(row.in_product), isRead: row.is_read === 1 };
  if (row.email !== null) deliveryTargets.email = parseObject<StoredEmail>(row.email);
  return {
    id: row.id,
    object: 'notification',
    appId: row.app_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    senderId: row.sender_id,
    senderType: row.sender_type,
    recipientClientId: row.recipient_client_id ?? undefined,
    recipientInternalUserId: row.recipient_internal_user_id ?? undefined,
    recipientCompanyId: row.recipient_company_id ?? undefined,
    deliveryTargets,
  };
}

/**
 * The notifications an access sees: a client session its own and its companies' (addressed to the
 * company as a whole); a principal limited to some companies those of its companies and those of
 * internal users; everyone else the whole workspace.
 */
function visibleTo(access: Access) {
  return (eb: ExpressionBuilder<DB, 'notifications'>) => {
    const inWorkspace = eb('notifications.workspace_id', '=', access.workspaceId);
    if (access.clientId) {
      return eb.and([
        inWorkspace,
        eb.or([
          eb('notifications.recipient_client_id', '=', access.clientId),
          eb.and([
            eb('notifications.recipient_client_id', 'is', null),
            eb('notifications.recipient_company_id', 'in', nonEmpty(access.companyIds ?? [])),
          ]),
        ]),
      ]);
    }
    if (access.companyIds) {
      return eb.and([
        inWorkspace,
        eb.or([
          eb('notifications.recipient_company_id', 'in', nonEmpty(access.companyIds)),
          eb('notifications.recipient_internal_user_id', 'is not', null),
        ]),
      ]);
    }
    return inWorkspace;
  };
}

/** A page, newest first; unread only unless `includeRead`. Each recipient filter has its own index. */
export function listNotifications(
  db: Kysely<DB>,
  access: Access,
  query: NotificationListQuery,
  tokens: PageTokens,
): Promise<Page<Notification>> {
  const { recipientClientId, recipientInternalUserId } = query;
  const includeRead = query.includeRead === true;
  let q = db.selectFrom('notifications').selectAll().where(visibleTo(access));
  if (recipientClientId !== undefined) q = q.where('recipient_client_id', '=', recipientClientId);
  if (recipientInternalUserId !== undefined) q = q.where('recipient_internal_user_id', '=', recipientInternalUserId);
  if (!includeRead) q = q.where('is_read', '=', 0);
  const scope = pageScope(access, 'notifications', { recipientClientId, recipientInternalUserId, includeRead });
  return fetchPage(q, 'notifications', query, tokens, scope, toNotification);
}

const insertRow = preparedWrite('insert_notification', (db, row: FullRow<'notifications'>) => db.insertInto('notifications').values(row));

/** A new notification: who sent it (and through which app and setting), to whom, and its targets. */
export interface NewNotification {
  id: string;
  appId: string;
  installId: string | null;
  settingId: string | null;
  sender: { id: string; kind: SenderType; companyId: string | null };
  to: { clientId: string | null; internalUserId: string | null; companyId: string | null };
  inProduct: StoredInProduct | null;
  email: StoredEmail | null;
  at: string;
}

/** Queues a new (unread) notification of this access's workspace; the notification as served. */
export function insertNotification(work: UnitOfWork, access: Access, input: NewNotification): Notification {
  const row: NotificationsTable = {
    id: input.id,
    workspace_id: access.workspaceId,
    app_id: input.appId,
    install_id: input.installId,
    setting_id: input.settingId,
    sender_id: input.sender.id,
    sender_type: input.sender.kind,
    sender_company_id: input.sender.companyId,
    recipient_client_id: input.to.clientId,
    recipient_internal_user_id: input.to.internalUserId,
    recipient_company_id: input.to.companyId,
    in_product: input.inProduct && JSON.stringify(input.inProduct),
    email: input.email && JSON.stringify(input.email),
    is_read: 0,
    created_at: input.at,
    updated_at: input.at,
  };
  work.write(insertRow(work.db, row));
  return toNotification(row);
}

/** The notification, if this access sees it. */
export async function findNotification(db: Kysely<DB>, access: Access, id: string): Promise<Notification | undefined> {
  const row = await db
    .selectFrom('notifications')
    .selectAll()
    .where(visibleTo(access))
    .where('notifications.id', '=', id)
    .executeTakeFirst();
  return row && toNotification(row);
}

/**
 * The workspace of a notification, by its id alone: the one read without a workspace, for the link its e-mail
 * carries (`PORTAL_URL/notifications/{id}`), which names no workspace. It tells nothing but where to go.
 */
export async function findNotificationWorkspace(db: Kysely<DB>, id: string): Promise<string | undefined> {
  const row = await db.selectFrom('notifications').select('workspace_id').where('id', '=', id).executeTakeFirst();
  return row?.workspace_id;
}

/** Queues the in-product read state of a notification this access sees; the notification after the change. */
export function setRead(work: UnitOfWork, access: Access, before: Notification, isRead: boolean, at: string): Notification {
  work.write(
    work.db
      .updateTable('notifications')
      .set({ is_read: isRead ? 1 : 0, updated_at: at })
      .where(visibleTo(access))
      .where('notifications.id', '=', before.id),
  );
  const { inProduct } = before.deliveryTargets;
  return {
    ...before,
    updatedAt: at,
    deliveryTargets: { ...before.deliveryTargets, ...(inProduct ? { inProduct: { ...inProduct, isRead } } : {}) },
  };
}

/** Queues the deletion of a notification this access sees. */
export function deleteNotification(work: UnitOfWork, access: Access, id: string): void {
  work.write(work.db.deleteFrom('notifications').where(visibleTo(access)).where('notifications.id', '=', id));
}

/** A sender or recipient: a client (its e-mail and companies), an internal user (its e-mail) or a company. */
export interface Party {
  kind: SenderType;
  id: string;
  email: string;
  companyIds: string[];
  /** Whether notifications' e-mails go to this person (its account page's choice); true for a company. */
  emailNotifications: boolean;
}

/**
 * The clients, internal users and companies of the workspace among these ids, in one query (the
 * sender and the recipient of a notification are looked up together).
 */
const partiesByIds = preparedQuery('notification_parties', (db, p: { workspaceId: string; first: string; second: string }) =>
  db
    .selectFrom('clients')
    .select([sql<SenderType>`'client'`.as('kind'), 'id', 'email', 'company_ids', 'email_notifications'])
    .where('workspace_id', '=', p.workspaceId)
    .where('id', 'in', [p.first, p.second])
    .unionAll(
      db
        .selectFrom('internal_users')
        .select([sql<SenderType>`'internalUser'`.as('kind'), 'id', 'email', sql<string>`''`.as('company_ids'), 'email_notifications'])
        .where('workspace_id', '=', p.workspaceId)
        .where('id', 'in', [p.first, p.second]),
    )
    .unionAll(
      db
        .selectFrom('companies')
        .select([
          sql<SenderType>`'company'`.as('kind'),
          'id',
          sql<string>`''`.as('email'),
          sql<string>`''`.as('company_ids'),
          sql<number>`1`.as('email_notifications'),
        ])
        .where('workspace_id', '=', p.workspaceId)
        .where('id', 'in', [p.first, p.second]),
    ),
);

export async function findParties(db: Kysely<DB>, access: Access, first: string, second: string): Promise<Party[]> {
  const rows = await partiesByIds.all(db, { workspaceId: access.workspaceId, first, second });
  return rows.map((row) => ({
    kind: row.kind,
    id: row.id,
    email: row.email,
    companyIds: splitIds(row.company_ids),
    emailNotifications: Number(row.email_notifications) === 1,
  }));
}

/** The e-mail addresses of a company's clients (a notification to the company e-mails each) but those who turned e-mails off. */
export async function companyClientEmails(db: Kysely<DB>, access: Access, companyId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('client_companies as m')
    .innerJoin('clients', 'clients.id', 'm.client_id')
    .select('clients.email')
    .where('m.workspace_id', '=', access.workspaceId)
    .where('m.company_id', '=', companyId)
    .where('clients.email_notifications', '=', 1)
    .orderBy('clients.email')
    .execute();
  return rows.map((row) => row.email);
}

/** An internal user's choice for one setting: each surface 0/1, or null (the setting's default). */
export function findPreference(db: Kysely<DB>, internalUserId: string, installId: string, settingId: string) {
  return db
    .selectFrom('notification_preferences')
    .select(['email', 'product'])
    .where('internal_user_id', '=', internalUserId)
    .where('install_id', '=', installId)
    .where('setting_id', '=', settingId)
    .executeTakeFirst();
}
