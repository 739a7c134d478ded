import { type Static, Type } from 'typebox';
import { FreeFormObject, Id, PageQuery, RefId, Timestamp } from '../../../lib/schemas.js';
import { AUDIT_EVENT_TYPES } from '../../../audit/index.js';

/** Absent is absent (issue 23): a field with no value is left out of the entry, never null. */
const OptionalString = (description?: string) => Type.Optional(Type.String(description ? { description } : {}));
const FreeObject = Type.Unsafe<Record<string, unknown>>({ type: 'object', additionalProperties: true });

const AUDIT_SOURCES = ['web', 'platform', 'automation', 'system'] as const;

/** An entry as answered: the internal-only and hidden fields of the specification are never in it. */
export const AuditLogEntry = Type.Object(
  {
    id: Id,
    object: Type.Literal('auditLogEntry'),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    creatorId: Type.String({ description: 'who recorded it: the actor, else ""' }),
    identityId: Type.String({ description: 'the actor’s identity, else ""' }),
    ref: Type.String({ description: 'id of the object the event is about, else ""' }),
    data: Type.String({ description: 'JSON of that object after the change (its last state for a deletion), else ""' }),
    eventType: Type.Enum([...AUDIT_EVENT_TYPES]),
    eventDescription: Type.String(),
    source: Type.Enum([...AUDIT_SOURCES]),
    actorId: OptionalString('user or system actor; absent for an API key or the system'),
    actorType: Type.Optional(Type.Enum(['internalUser', 'clientUser'])),
    automationId: OptionalString(),
    companyId: OptionalString('company of the actor when a client user'),
    context: FreeObject,
    previousAttributes: Type.Optional(FreeObject),
    ip: OptionalString('client IP of the request (personal data: left out after PORTAL_AUDIT_PII_DAYS)'),
    userAgent: OptionalString('User-Agent of the request (personal data, likewise)'),
  },
  { additionalProperties: false, title: 'AuditLogEntry' },
);
export type AuditLogEntry = Static<typeof AuditLogEntry>;

export const AuditLogListQuery = Type.Object(
  {
    ...PageQuery,
    eventType: Type.Optional(
      Type.Enum([...AUDIT_EVENT_TYPES], { description: 'one event type of the specification, or sessionTokenMinted (this service’s own)' }),
    ),
    actorId: Type.Optional(Type.String()),
    companyId: Type.Optional(Type.String({ description: 'company of the actor (a client user)' })),
    source: Type.Optional(Type.Enum([...AUDIT_SOURCES])),
    createdAfter: Type.Optional(Type.String({ format: 'date-time', description: 'RFC 3339: entries at or after it' })),
    createdBefore: Type.Optional(Type.String({ format: 'date-time', description: 'RFC 3339: entries before it' })),
  },
  { additionalProperties: false },
);
export type AuditLogListQuery = Static<typeof AuditLogListQuery>;

export const AuditEventCreate = Type.Object(
  {
    eventType: Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'sessionStarted, sessionEnded, or a custom type (recorded as customEvent, the name in context.customEventType)',
    }),
    eventDescription: Type.String({ maxLength: 500 }),
    context: FreeFormObject('event-specific metadata'),
    actorId: Type.Optional(RefId('default: the caller’s own user (a session, or a person signed in); a person may name only itself')),
    companyId: Type.Optional(RefId('company of the actor when a client user')),
    lastActivityAt: Type.Optional(
      Type.String({
        format: 'date-time',
        description:
          'sessionEnded: the entry’s createdAt; sessionStarted: closes the actor’s open session there (a synthetic sessionEnded, source system). Not in the future, not before the session started',
      }),
    ),
  },
  { additionalProperties: false, title: 'AuditEventCreate' },
);
export type AuditEventCreate = Static<typeof AuditEventCreate>;
