import type { Database } from '../../../db/database.js';
import type { Page, PageTokens } from '../../../db/paging.js';
import { type UnitOfWork, unitOfWork } from '../../../db/unit-of-work.js';
import type { Access, Caller } from '../../../lib/caller.js';
import { isoAt } from '../../../lib/clock.js';
import { errors } from '../../../lib/errors.js';
import { fallbackColorFor } from '../../../lib/fallback-color.js';
import { isUuid } from '../../../lib/formats.js';
import { recordAudit } from '../../../audit/index.js';
import { newRowId } from '../../../lib/row-id.js';
import { existingCompanyIds } from '../directory/index.js';
import * as repo from './internal-users.repository.js';
import type { InternalUser, InternalUserCreate, InternalUserListQuery } from './internal-users.schemas.js';

/**
 * Creates an internal user of the caller's workspace and its `internalUserCreated` audit entry, in one
 * unit of work. The input has passed `InternalUserCreate`; its companies must be the workspace's. `invite`
 * queues the invite's writes in the same unit (the staff workflow's: an e-mail to choose a password), and the
 * entry says so (`inviteSent`).
 */
export async function createInternalUser(
  database: Database,
  caller: Caller,
  input: InternalUserCreate,
  invite?: (work: UnitOfWork, user: InternalUser) => Promise<void>,
): Promise<InternalUser> {
  const { access, actor } = caller;
  const email = input.email.trim();
  const role = input.role ?? 'staff';
  const companies = input.companyAccessList === undefined ? undefined : await workspaceCompanies(database, access, input.companyAccessList);
  const id = newRowId();
  const at = isoAt(actor.at);
  const user: InternalUser = {
    id,
    object: 'internalUser',
    createdAt: at,
    updatedAt: at,
    email,
    givenName: input.givenName.trim(),
    familyName: input.familyName.trim(),
    role,
    isClientAccessLimited: companies !== undefined,
    companyAccessList: companies ?? [],
    fallbackColor: fallbackColorFor(id),
  };
  return unitOfWork(database, async (work) => {
    repo.insertInternalUser(work, access, user);
    if (invite) await invite(work, user);
    recordAudit(work, actor, {
      eventType: 'internalUserCreated',
      description: `Internal user ${email} created${invite ? ' and invited' : ''}`,
      context: {
        internalUserId: id,
        email,
        role,
        ...(companies ? { companyAccessList: companies } : {}),
        ...(invite ? { inviteSent: true } : {}),
      },
      subject: { object: 'internalUser', id, data: user },
    });
    return user;
  });
}

/** A company access list, each company once, all of the caller's workspace (else a 400 naming the others). */
export async function workspaceCompanies(database: Database, access: Access, list: readonly string[]): Promise<string[]> {
  const companies = [...new Set(list)];
  const known = await existingCompanyIds(database.db, access, companies);
  const unknown = companies.filter((c) => !known.has(c));
  if (unknown.length) {
    throw errors.badRequest(
      `companyAccessList: not a company of this workspace: ${unknown.join(', ')}`,
      unknown.map((c) => ({ path: 'companyAccessList', message: `${c} is not a company of this workspace` })),
    );
  }
  return companies;
}

// A client session sees no staff (contract §1: everything but itself, its companies, installs and notifications is 404).
const seesInternalUsers = (access: Access) => access.clientId === null;

export async function getInternalUser(database: Database, caller: Caller, id: string): Promise<InternalUser> {
  const user = isUuid(id) && seesInternalUsers(caller.access) ? await repo.findInternalUser(database.db, caller.access, id) : undefined;
  if (!user) throw errors.notFound('Internal user');
  return user;
}

export async function listInternalUsers(
  database: Database,
  caller: Caller,
  query: InternalUserListQuery,
  tokens: PageTokens,
): Promise<Page<InternalUser>> {
  if (!seesInternalUsers(caller.access)) return { data: [] };
  return repo.listInternalUsers(database.db, caller.access, query, tokens);
}

/** What an internal user changes of its own profile (the portal's account page): the fields given, the others kept. */
export interface OwnInternalUserProfileChanges {
  givenName?: string;
  familyName?: string;
  /** null: no picture */
  avatarImageUrl?: string | null;
  emailNotifications?: boolean;
}

/**
 * An internal user's own profile, changed in the caller's unit of work (a transaction: sign-in's profile routes keep
 * the picture's bytes in the same one), its row locked first. No audit entry: the specification has no event for a
 * change of an internal user but its access (internalUserAccessLevelChanged, internalUserClientVisibilitySet).
 */
export async function changeOwnInternalUserProfile(
  work: UnitOfWork,
  caller: Caller,
  id: string,
  changes: OwnInternalUserProfileChanges,
): Promise<{ user: InternalUser; emailNotifications: boolean }> {
  const found = await repo.findInternalUserProfile(work.db, caller.access, id, work.database.dialect);
  if (!found) throw errors.notFound('Internal user');
  const previous = found.user;
  const user: InternalUser = {
    ...previous,
    givenName: changes.givenName?.trim() ?? previous.givenName,
    familyName: changes.familyName?.trim() ?? previous.familyName,
  };
  if (changes.avatarImageUrl === null) delete user.avatarImageUrl;
  else if (changes.avatarImageUrl !== undefined) user.avatarImageUrl = changes.avatarImageUrl;
  const emailNotifications = changes.emailNotifications ?? found.emailNotifications;
  const changed = (['givenName', 'familyName', 'avatarImageUrl'] as const).some((field) => user[field] !== previous[field]);
  if (!changed && emailNotifications === found.emailNotifications) return found;
  if (changed) user.updatedAt = isoAt(caller.actor.at);
  repo.updateInternalUserProfile(work, caller.access, user, emailNotifications);
  return { user, emailNotifications };
}
