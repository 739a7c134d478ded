import type { DbHandle } from '../../../db/database.js';
import type { UnitOfWork } from '../../../db/unit-of-work.js';
import type { Access, InternalUserRole } from '../../../lib/caller.js';
import { findClient, findClientByEmail, findInvitedClient, recordClientSignIn } from '../../resources/directory/index.js';
import { findInternalUser, findInternalUserByEmail } from '../../resources/internal-users/index.js';
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
