import type { Database } from '../../../db/database.js';
import { listAs } from '../../../db/paging.js';
import { unitOfWork } from '../../../db/unit-of-work.js';
import { type Actor, type Caller, assertNamesItself } from '../../../lib/caller.js';
import { isoAt } from '../../../lib/clock.js';
import { type FieldProblem, errors } from '../../../lib/errors.js';
import * as repo from './audit-log.repository.js';
import type { AuditEventCreate, AuditLogEntry } from './audit-log.schemas.js';
import { recordAudit } from '../../../audit/index.js';
import { visibleClientCompanies } from '../directory/index.js';
import { findInternalUser } from '../internal-users/index.js';

export const listAuditLog = listAs(repo.listEntries);

/** The actor an event is attributed to: a session's own end user; for keys and tokens the one named (a client or internal user of the workspace). */
async function actorOf(database: Database, caller: Caller, input: AuditEventCreate, problems: FieldProblem[]): Promise<Actor> {
  const actor = caller.actor;
  const { actorId } = input;
  // A person records events as its own user only: attributing them to someone else would write the audit trail
  // in another's name (keys and bearer tokens, which apps use to report their users, may).
  assertNamesItself(caller, 'body.actorId', actorId);
  if (actorId === undefined || actorId === actor.actorId) {
    if (input.companyId !== undefined && actor.actorType !== 'clientUser')
      problems.push({ path: 'body.companyId', message: 'is given only for a client actor' });
    return actor;
  }
  // Only keys and bearer tokens get here (a person was answered above): they see the whole workspace.
  const [clientCompanies, user] = await Promise.all([
    visibleClientCompanies(database.db, caller.access, [actorId]),
    findInternalUser(database.db, caller.access, actorId),
  ]);
  const companies = clientCompanies.get(actorId) ?? [];
  if (!clientCompanies.has(actorId) && !user) {
    problems.push({ path: 'body.actorId', message: 'is not a client or internal user of this workspace' });
    return actor;
  }
  if (user) {
    if (input.companyId !== undefined) problems.push({ path: 'body.companyId', message: 'is given only for a client actor' });
    return { ...actor, actorId, actorType: 'internalUser', actorRole: user.role, companyId: null };
  }
  const companyId = input.companyId ?? companies[0] ?? null;
  if (companyId !== null && !companies.includes(companyId))
    problems.push({ path: 'body.companyId', message: 'is not a company of the actor' });
  return { ...actor, actorId, actorType: 'clientUser', actorRole: null, companyId };
}

/**
 * Records an event sent through the API (contract §3): a custom type as customEvent (its name in
 * `context.customEventType`); sessionStarted closes the actor's open session first with a synthetic
 * sessionEnded (source system) at `lastActivityAt`; sessionEnded is dated `lastActivityAt`.
 */
export async function createAuditEvent(database: Database, caller: Caller, input: AuditEventCreate): Promise<AuditLogEntry> {
  const problems: FieldProblem[] = [];
  const actor = await actorOf(database, caller, input, problems);
  const now = caller.actor.at;
  const session = input.eventType === 'sessionStarted' || input.eventType === 'sessionEnded';
  const lastActivity = input.lastActivityAt === undefined ? undefined : Date.parse(input.lastActivityAt);
  if (lastActivity !== undefined && lastActivity > now) problems.push({ path: 'body.lastActivityAt', message: 'is in the future' });
  if (session && actor.actorId === null)
    problems.push({ path: 'body.actorId', message: 'is required for a session event when the caller is not a session' });
  if (problems.length > 0) throw errors.invalidFields(problems);

  const id = await unitOfWork(
    database,
    async (work) => {
      if (!session) {
        return recordAudit(work, actor, {
          eventType: 'customEvent',
          description: input.eventDescription,
          context: { ...input.context, customEventType: input.eventType },
        });
      }
      const actorId = actor.actorId as string;
      const startedAt = await repo.openSession(work.db, caller.access, actorId);
      if (startedAt !== undefined && lastActivity !== undefined && lastActivity < Date.parse(startedAt)) {
        throw errors.invalidField('body.lastActivityAt', `is before the session started (${startedAt})`);
      }
      if (input.eventType === 'sessionStarted') {
        if (startedAt !== undefined) {
          recordAudit(work, actor, {
            eventType: 'sessionEnded',
            description: 'Session ended (closed by the next sessionStarted)',
            context: { synthetic: true, sessionStartedAt: startedAt },
            at: lastActivity ?? now,
            bySystem: true,
          });
        }
        repo.startSession(work, caller.access, actorId, isoAt(now));
        return recordAudit(work, actor, { eventType: 'sessionStarted', description: input.eventDescription, context: input.context });
      }
      repo.endSession(work, caller.access, actorId);
      return recordAudit(work, actor, {
        eventType: 'sessionEnded',
        description: input.eventDescription,
        context: input.context,
        at: lastActivity ?? now,
      });
    },
    // A session event reads the open session and writes what it read: a transaction. A custom event only
    // writes: one batch (group commit on SQLite).
    { transaction: session },
  );
  const entry = await repo.findEntry(database.db, caller.access, id);
  if (!entry) throw new Error(`audit entry ${id} vanished after its commit`);
  return entry;
}
