import type { Database } from '../../../db/database.js';
import { type UnitOfWork, unitOfWork } from '../../../db/unit-of-work.js';
import { type Access, type Caller, ownUserOf } from '../../../lib/caller.js';
import { isoAt } from '../../../lib/clock.js';
import { credentialsChanged } from '../../../lib/credential-cache.js';
import { errors } from '../../../lib/errors.js';
import { isUuid } from '../../../lib/formats.js';
import { recordAudit } from '../../../audit/index.js';
import { revokeSessionsOf } from '../../resources/credentials/index.js';
import {
  type InternalUser,
  type InternalUserAccessUpdate,
  type InternalUserCreate,
  createInternalUser,
  deleteInternalUser,
  findInternalUserForUpdate,
  lockAdmins,
  updateInternalUserAccess,
  workspaceCompanies,
} from '../../resources/internal-users/index.js';
import { unassignTasksOf } from '../../resources/tasks/index.js';
import { inviteInternalUser } from '../../surfaces/sign-in/index.js';

/**
 * Who may change the team: keys, bearer tokens and the operator (the whole workspace), and an admin who sees every
 * company (the route's policy has refused staff and clients already). An admin limited to some companies may not: it
 * could otherwise make someone, or itself, see what it may not see.
 */
function assertManagesTeam(caller: Caller): void {
  if (caller.access.companyIds !== null) {
    throw errors.forbidden('An admin limited to some companies may not change the team: an admin who sees every company may.');
  }
}

/** A person changes its colleagues, not itself: another admin does, so that nobody removes or demotes themselves by mistake. */
function assertNotItself(caller: Caller, id: string, what: string): void {
  const own = ownUserOf(caller);
  if (own?.type === 'internalUser' && own.id === id) throw errors.forbidden(`You may not ${what} yourself: another admin may.`);
}

/**
 * Adds an internal user to the team (`POST /v1/internal-users`): internalUserCreated; with `sendInvite`, the person is
 * e-mailed a link to choose a password in the same unit (the sign-in surface's, modules/surfaces/sign-in).
 */
export async function addInternalUser(
  database: Database,
  caller: Caller,
  input: InternalUserCreate,
  options: { sendInvite?: boolean; portalUrl: string },
): Promise<InternalUser> {
  assertManagesTeam(caller);
  if (!options.sendInvite) return createInternalUser(database, caller, input);
  return createInternalUser(database, caller, input, (work, user) =>
    inviteInternalUser(work, caller.access, user, caller.actor.at, options.portalUrl),
  );
}

/**
 * The internal user and the workspace's admins' ids, read under lock on PostgreSQL: the admins first, then the user,
 * always in that order, so that changes at once neither lose one another nor deadlock, and two of them cannot each
 * count the other admin and leave none. Another workspace's user is simply not found (404).
 */
async function lockedUser({ db, database }: UnitOfWork, access: Access, id: string) {
  const admins = await lockAdmins(db, access, database.dialect);
  const user = isUuid(id) ? await findInternalUserForUpdate(db, access, id, database.dialect) : undefined;
  if (!user) throw errors.notFound('Internal user');
  return { user, admins };
}

/** A workspace keeps an admin: its last one can be neither made staff nor removed. */
function refuseLastAdmin(user: InternalUser, admins: readonly string[], what: string): void {
  if (user.role === 'admin' && admins.length === 1) {
    throw errors.conflict(`Internal user ${user.id} is the workspace's last admin and cannot be ${what}: make another user admin first.`);
  }
}

const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((id, i) => id === b[i]);

/**
 * Changes an internal user's role and the companies it may see, recording internalUserAccessLevelChanged and
 * internalUserClientVisibilitySet for what changed (nothing, when nothing did). Its sessions carry the new access
 * on their next request here, and within the credential cache's second on every other process. The admin surface's,
 * the CLI's and `PATCH /v1/internal-users/{id}`'s: a limited admin may not, and nobody changes itself (403).
 */
export async function changeInternalUserAccess(
  database: Database,
  caller: Caller,
  id: string,
  input: InternalUserAccessUpdate,
): Promise<InternalUser> {
  assertManagesTeam(caller);
  assertNotItself(caller, id, 'change the access of');
  const { access, actor } = caller;
  const companies =
    input.companyAccessList === undefined || input.companyAccessList === null
      ? input.companyAccessList
      : await workspaceCompanies(database, access, input.companyAccessList);
  return unitOfWork(
    database,
    async (work) => {
      const { user: previous, admins } = await lockedUser(work, access, id);
      const role = input.role ?? previous.role;
      if (role !== 'admin') refuseLastAdmin(previous, admins, 'made staff');
      const limited = companies === undefined ? previous.isClientAccessLimited : companies !== null;
      const list = companies === undefined ? previous.companyAccessList : (companies ?? []);
      const roleChanged = role !== previous.role;
      const visibilityChanged = limited !== previous.isClientAccessLimited || !sameList(list, previous.companyAccessList);
      if (!roleChanged && !visibilityChanged) return previous;
      const user: InternalUser = { ...previous, role, isClientAccessLimited: limited, companyAccessList: list, updatedAt: isoAt(actor.at) };
      updateInternalUserAccess(work, access, user);
      const subject = { object: 'internalUser', id, data: user };
      if (roleChanged) {
        recordAudit(work, actor, {
          eventType: 'internalUserAccessLevelChanged',
          description: `Internal user ${user.email} is now ${role} (was ${previous.role})`,
          context: { internalUserId: id, previousRole: previous.role, role },
          subject,
        });
      }
      if (visibilityChanged) {
        recordAudit(work, actor, {
          eventType: 'internalUserClientVisibilitySet',
          description: limited
            ? `Internal user ${user.email} limited to ${list.length} ${list.length === 1 ? 'company' : 'companies'}`
            : `Internal user ${user.email} sees every company`,
          context: { internalUserId: id, isClientAccessLimited: limited, companyAccessList: list },
          subject,
        });
      }
      work.onCommit(() => credentialsChanged(database)); // its sessions carry its role and companies
      return user;
    },
    { transaction: true },
  );
}

/**
 * Removes an internal user: its sessions are revoked (refused at once here, within a second on other processes; its
 * portal sign-ins go with its row), the tasks assigned to it stay, unassigned; what it wrote (messages, notes, files,
 * audit entries) keeps naming it. Its notifications and notification preferences go with it. Records
 * internalUserDeleted. A limited admin may not, and nobody removes itself (403); the last admin stays (409).
 */
export async function removeInternalUser(database: Database, caller: Caller, id: string): Promise<void> {
  assertManagesTeam(caller);
  assertNotItself(caller, id, 'remove');
  const { access, actor } = caller;
  await unitOfWork(
    database,
    async (work) => {
      const { user, admins } = await lockedUser(work, access, id);
      refuseLastAdmin(user, admins, 'removed');
      const at = isoAt(actor.at);
      unassignTasksOf(work, access, id, at);
      revokeSessionsOf(work, access, id, at);
      deleteInternalUser(work, access, id);
      recordAudit(work, actor, {
        eventType: 'internalUserDeleted',
        description: `Internal user ${user.email} removed`,
        context: { internalUserId: id, email: user.email, role: user.role },
        subject: { object: 'internalUser', id, data: user },
      });
      work.onCommit(() => credentialsChanged(database));
    },
    { transaction: true },
  );
}
