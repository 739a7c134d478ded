import type { Kysely } from 'kysely';
import { type Page, type PageTokens, fetchPage, pageScope } from '../../../db/paging.js';
import { type FullRow, preparedWrite } from '../../../db/prepared.js';
import type { DB, EmailOutboxTable } from '../../../db/schema.js';
import type { UnitOfWork } from '../../../db/unit-of-work.js';
import type { Access } from '../../../lib/caller.js';
import { isoAt } from '../../../lib/clock.js';
import { newRowId } from '../../../lib/row-id.js';
import type { OutboxEmail, OutboxListQuery } from './email-outbox.schemas.js';

/** An e-mail to send, as a service queues it. */
export interface QueuedEmail {
  notificationId: string | null;
  to: string;
  subject: string;
  text: string;
}

const insertRow = preparedWrite('insert_outbox_email', (db, row: FullRow<'email_outbox'>) => db.insertInto('email_outbox').values(row));

/**
 * Queues e-mails in the caller's unit of work: they exist exactly when the change that sends them
 * commits. One prepared insert each (a company's clients can be many: no statement outgrows the
 * dialects' parameter limits).
 */
export function queueEmails(work: UnitOfWork, access: Access, emails: readonly QueuedEmail[], at: string): void {
  for (const email of emails) {
    work.write(
      insertRow(work.db, {
        id: newRowId(),
        workspace_id: access.workspaceId,
        notification_id: email.notificationId,
        to_address: email.to,
        subject: email.subject,
        text_body: email.text,
        status: 'queued',
        attempts: 0,
        next_attempt_at: at,
        claimed_until: null,
        last_error: null,
        created_at: at,
        sent_at: null,
      }),
    );
  }
}

function toOutboxEmail(row: EmailOutboxTable, withText: boolean): OutboxEmail {
  return {
    id: row.id,
    notificationId: row.notification_id,
    to: row.to_address,
    subject: row.subject,
    status: row.status,
    attempts: row.attempts,
    nextAttemptAt: row.status === 'queued' ? row.next_attempt_at : null,
    lastError: row.last_error,
    createdAt: row.created_at,
    sentAt: row.sent_at,
    ...(withText && row.text_body !== '' ? { text: row.text_body } : {}),
  };
}

/** A page of the workspace's outbox, newest first; `withText`: each e-mail's body while it is kept. */
export function listOutbox(
  db: Kysely<DB>,
  access: Access,
  query: OutboxListQuery,
  tokens: PageTokens,
  withText: boolean,
): Promise<Page<OutboxEmail>> {
  let q = db.selectFrom('email_outbox').selectAll().where('workspace_id', '=', access.workspaceId);
  if (query.status !== undefined) q = q.where('status', '=', query.status);
  const scope = pageScope(access, 'email-outbox', { status: query.status });
  return fetchPage(q, 'email_outbox', query, tokens, scope, (row) => toOutboxEmail(row, withText));
}

/**
 * Claims up to `limit` due e-mails for this process until `leaseMs` from now: each claim is a
 * conditional update, so with several processes on one PostgreSQL an e-mail is claimed by one of
 * them; a process that dies holding one releases it when the lease runs out.
 */
export async function claimDueEmails(db: Kysely<DB>, now: number, leaseMs: number, limit: number): Promise<EmailOutboxTable[]> {
  const at = isoAt(now);
  const due = await db
    .selectFrom('email_outbox')
    .selectAll()
    .where('status', '=', 'queued')
    .where('next_attempt_at', '<=', at)
    .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', at)]))
    .orderBy('next_attempt_at')
    .limit(limit)
    .execute();
  const claimed: EmailOutboxTable[] = [];
  for (const row of due) {
    const result = await db
      .updateTable('email_outbox')
      .set({ claimed_until: isoAt(now + leaseMs) })
      .where('id', '=', row.id)
      .where('status', '=', 'queued')
      .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', at)]))
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 1) claimed.push(row);
  }
  return claimed;
}

/** Sent: its body is not kept (a sign-in, reset or invite e-mail carries a link that opens an account). */
export async function markEmailSent(db: Kysely<DB>, id: string, attempts: number, at: number): Promise<void> {
  await db
    .updateTable('email_outbox')
    .set({ status: 'sent', attempts, sent_at: isoAt(at), claimed_until: null, last_error: null, text_body: '' })
    .where('id', '=', id)
    .execute();
}

/** A failed attempt: tried again at `retryAt`, or `failed` for good when there is none (kept either way). */
export async function markEmailAttemptFailed(
  db: Kysely<DB>,
  id: string,
  attempts: number,
  error: string,
  retryAt: number | null,
): Promise<void> {
  await db
    .updateTable('email_outbox')
    .set({
      attempts,
      last_error: error.slice(0, 500),
      claimed_until: null,
      ...(retryAt === null ? { status: 'failed' as const } : { next_attempt_at: isoAt(retryAt) }),
    })
    .where('id', '=', id)
    .execute();
}
