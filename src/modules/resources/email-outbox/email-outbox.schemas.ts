import { type Static, Type } from 'typebox';
import { Id, NullableTimestamp, PageQuery, Timestamp } from '../../../lib/schemas.js';

const EMAIL_STATUSES = ['queued', 'sent', 'failed'] as const;

/** An e-mail of the outbox as the operator reads it (`portal outbox list`, the admin surface). */
export const OutboxEmail = Type.Object(
  {
    id: Id,
    notificationId: Type.Unsafe<string | null>({ type: ['string', 'null'] }),
    to: Type.String(),
    subject: Type.String(),
    status: Type.Enum([...EMAIL_STATUSES], {
      description: 'queued: not sent yet (retried with backoff); sent; failed: every retry failed (kept)',
    }),
    attempts: Type.Integer(),
    nextAttemptAt: Type.Unsafe<string | null>({
      type: ['string', 'null'],
      format: 'date-time',
      description: 'when a queued e-mail is tried next; null once sent or failed',
    }),
    lastError: Type.Unsafe<string | null>({ type: ['string', 'null'], description: 'the SMTP error of the last failed attempt' }),
    createdAt: Timestamp,
    sentAt: NullableTimestamp,
    text: Type.Optional(
      Type.String({
        description:
          'the e-mail’s plain text, its links included (sign-in, reset, invite), only while the server has no SMTP_URL: local ' +
          'development reads its e-mails here. Absent with SMTP_URL (the body is on its way to someone else) and once sent',
      }),
    ),
  },
  { additionalProperties: false, title: 'OutboxEmail' },
);
export type OutboxEmail = Static<typeof OutboxEmail>;

export const OutboxListQuery = Type.Object(
  { ...PageQuery, status: Type.Optional(Type.Enum([...EMAIL_STATUSES], { description: 'only the e-mails in this state' })) },
  { additionalProperties: false },
);
export type OutboxListQuery = Static<typeof OutboxListQuery>;
