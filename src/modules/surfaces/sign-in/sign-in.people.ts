import type { DbHandle } from '../../../db/database.js';
import type { UnitOfWork } from '../../../db/unit-of-work.js';
import { type Access, type Caller, type InternalUserRole, type Origin, systemCaller } from '../../../lib/caller.js';
import { errors } from '../../../lib/errors.js';
import {
  type OwnProfileChanges,
  changeOwnClientProfile,
  findClient,
  findClientByEmail,
  findClientProfile,
  findInvitedClient,
  recordClientSignIn,
} from '../../resources/directory/index.js';
import {
  changeOwnInternalUserProfile,
  findInternalUser,
  findInternalUserByEmail,
  findInternalUserProfile,
} from '../../resources/internal-users/index.js';
import { findClock } from '../../resources/workspaces/index.js';
import type { Person, PersonRef, UserType } from './sign-in.repository.js';

/**
 * The people who sign in are the directory's clients and the internal users: found, and a client's sign-ins recorded,
 * through those modules' faces, under the workspace's access (sign-in's is the workspace: `workspaceAccess`).
 */

type ClientLike = { id: string; email: string; givenName: string; familyName: string; status: string; companyId: string };
type InternalUserLike = { id: string; email: string; givenName: string; familyName: string; role: InternalUserRole };

const clientPerson = (access: Access, client: ClientLike): Person => ({
  type: 'client',
  id: client.id,
  workspaceId: access.workspaceId,
  email: client.email,
  givenName: client.givenName,
  familyName: client.familyName,
  status: client.status,
  companyId: client.companyId,
  role: null,
});

const userPerson = (access: Access, user: InternalUserLike): Person => ({
  type: 'internalUser',
  id: user.id,
  workspaceId: access.workspaceId,
  email: user.email,
  givenName: user.givenName,
  familyName: user.familyName,
  status: null,
  companyId: null,
  role: user.role,
});

/** The person of a workspace with this e-mail (case-insensitively), or undefined. */
export async function findPersonByEmail(db: DbHandle, access: Access, type: UserType, email: string): Promise<Person | undefined> {
  if (type === 'client') {
    const client = await findClientByEmail(db, access, email);
    return client && clientPerson(access, client);
  }
  const user = await findInternalUserByEmail(db, access, email);
  return user && userPerson(access, user);
}

/** The person a sign-in row names, or undefined (removed since). */
export async function findPerson(db: DbHandle, access: Access, ref: PersonRef): Promise<Person | undefined> {
  if (ref.type === 'client') {
    const client = await findClient(db, access, ref.id);
    return client && clientPerson(access, client);
  }
  const user = await findInternalUser(db, access, ref.id);
  return user && userPerson(access, user);
}

/** The client an invite link was sent to, with the link's expiry (`lockFor`: its row locked for the transaction). */
export async function findInvitee(
  db: DbHandle,
  access: Access,
  tokenHash: string,
  lockFor?: 'sqlite' | 'postgres',
): Promise<{ person: Person; expiresAt: string | null } | undefined> {
  const invite = await findInvitedClient(db, access, tokenHash, lockFor);
  return invite && { person: clientPerson(access, invite.client), expiresAt: invite.expiresAt };
}

/** A client signed in: its login dates, its first sign-in making it active (`activated` learns whether this one did). */
export function recordSignIn(work: UnitOfWork, access: Access, person: Person, at: string, activated: (first: boolean) => void): void {
  if (person.type === 'client') recordClientSignIn(work, access, person.id, at, activated);
}

/**
 * The signed-in person as the caller of a change to its own data (its profile): what it sees through the API (a
 * client itself in its company; an internal user the workspace), recorded as its act from the web, at the request's
 * time on the workspace's clock (a sandbox's test clock), as the API dates a request of the workspace.
 */
export async function personCaller(db: DbHandle, person: Person, origin: Origin, at: number): Promise<Caller> {
  const clock = await findClock(db, person.workspaceId);
  if (!clock) throw errors.notFound('Workspace');
  const system = systemCaller(person.workspaceId, at + clock.offsetMs);
  const client = person.type === 'client';
  return {
    ...system,
    access: client
      ? { workspaceId: person.workspaceId, companyIds: person.companyId ? [person.companyId] : [], clientId: person.id }
      : system.access,
    actor: {
      ...system.actor,
      source: 'web',
      actorId: person.id,
      actorType: client ? 'clientUser' : 'internalUser',
      actorRole: person.role,
      companyId: person.companyId,
      ip: origin.ip,
      userAgent: origin.userAgent,
    },
  };
}

/** A person's own profile as its module keeps it: names and picture, and whether notifications are e-mailed to it. */
export interface OwnProfile {
  email: string;
  givenName: string;
  familyName: string;
  avatarImageUrl?: string;
  emailNotifications: boolean;
}

const ownClient = ({ client, emailNotifications }: { client: ClientLike & { avatarImageUrl?: string }; emailNotifications: boolean }) => ({
  email: client.email,
  givenName: client.givenName,
  familyName: client.familyName,
  ...(client.avatarImageUrl ? { avatarImageUrl: client.avatarImageUrl } : {}),
  emailNotifications,
});
const ownUser = ({ user, emailNotifications }: { user: InternalUserLike & { avatarImageUrl?: string }; emailNotifications: boolean }) => ({
  email: user.email,
  givenName: user.givenName,
  familyName: user.familyName,
  ...(user.avatarImageUrl ? { avatarImageUrl: user.avatarImageUrl } : {}),
  emailNotifications,
});

/** The person's own profile, read through its module's face; undefined when it was removed meanwhile. */
export async function findOwnProfile(db: DbHandle, caller: Caller, ref: PersonRef): Promise<OwnProfile | undefined> {
  if (ref.type === 'client') {
    const found = await findClientProfile(db, caller.access, ref.id);
    return found && ownClient(found);
  }
  const found = await findInternalUserProfile(db, caller.access, ref.id);
  return found && ownUser(found);
}

/** The person's own profile changed in `work` (a transaction) through its module's face, which records what it records. */
export async function changeOwnProfile(work: UnitOfWork, caller: Caller, ref: PersonRef, changes: OwnProfileChanges): Promise<OwnProfile> {
  if (ref.type === 'client') return ownClient(await changeOwnClientProfile(work, caller, ref.id, changes));
  return ownUser(await changeOwnInternalUserProfile(work, caller, ref.id, changes));
}
