import { createHash, randomUUID } from 'node:crypto';
import type { Database } from '../../../db/database.js';
import { unitOfWork } from '../../../db/unit-of-work.js';
import { type Caller, workspaceAccess } from '../../../lib/caller.js';
import { isoAt } from '../../../lib/clock.js';
import { type FieldProblem, errors } from '../../../lib/errors.js';
import { type ImageType, MAX_IMAGE_BYTES, sniffImage } from '../../../lib/images.js';
import type { Profile, ProfileUpdate } from './profile.schemas.js';
import * as repo from './profile.repository.js';
import { type OwnProfile, changeOwnProfile, findOwnProfile, personCaller } from './sign-in.people.js';
import type { ActiveSession, Attempt } from './sign-in.service.js';

/**
 * The signed-in person's own profile (the portal's account page): its names, its picture and whether notifications are
 * e-mailed to it. A session changes only its own person, whose module (the directory for a client, internal-users for
 * an internal user) writes its row and records what a change of it records (a client's: clientUpdated); the picture's
 * bytes are sign-in's own rows, written in the same transaction, the person's row locked first, so concurrent changes
 * queue and each sees the last one's result.
 */

const IMAGE_TYPES: readonly string[] = ['image/png', 'image/jpeg', 'image/webp', 'image/gif'] satisfies ImageType[];

function view(session: ActiveSession, own: OwnProfile): Profile {
  const { person } = session;
  return {
    object: 'profile',
    type: person.type,
    id: person.id,
    email: own.email,
    givenName: own.givenName,
    familyName: own.familyName,
    ...(own.avatarImageUrl ? { avatarImageUrl: own.avatarImageUrl } : {}),
    notificationPreferences: { email: own.emailNotifications },
  };
}

/** The session's person as the caller of its own changes. */
const callerOf = (database: Database, session: ActiveSession, attempt: Attempt): Promise<Caller> =>
  personCaller(database.db, session.person, attempt, attempt.at);

export async function getProfile(database: Database, session: ActiveSession, attempt: Attempt): Promise<Profile> {
  const caller = await callerOf(database, session, attempt);
  const own = await findOwnProfile(database.db, caller, session.person);
  if (!own) throw errors.notFound('Person');
  return view(session, own);
}

/** Changes what is given of the person's names and notification choices; answers the whole profile. */
export async function updateProfile(database: Database, session: ActiveSession, input: ProfileUpdate, attempt: Attempt): Promise<Profile> {
  const problems: FieldProblem[] = [];
  for (const field of ['givenName', 'familyName'] as const)
    if (input[field] !== undefined && input[field].trim() === '')
      problems.push({ path: `body.${field}`, message: 'is required: it cannot be blank' });
  if (problems.length > 0) throw errors.invalidFields(problems);
  const caller = await callerOf(database, session, attempt);
  const own = await unitOfWork(
    database,
    (work) =>
      changeOwnProfile(work, caller, session.person, {
        givenName: input.givenName,
        familyName: input.familyName,
        emailNotifications: input.notificationPreferences?.email,
      }),
    { transaction: true },
  );
  return view(session, own);
}

/** Where a picture is served: under PORTAL_URL, by the person's id and its content's hash (new content, new URL). */
const avatarUrl = (portalUrl: string, workspaceId: string, personId: string, hash: string) =>
  `${portalUrl}/portal/${workspaceId}/api/avatars/${personId}/${hash}`;

/**
 * The picture's type, read from its bytes: a PNG, JPEG, WebP or GIF image, never SVG (it may carry script, and it would be
 * served from the portal's origin). Declared as something else (`image/svg+xml`): 415; declared as one of those but not
 * one (or empty): 400 naming the body.
 */
function imageType(bytes: Buffer, declared: string): ImageType {
  if (bytes.length === 0) throw errors.invalidField('body', 'is empty: send the picture’s bytes');
  const type = sniffImage(bytes);
  if (type) return type;
  if (!IMAGE_TYPES.includes(declared))
    throw errors.unsupportedMediaType(`A picture must be a PNG, JPEG, WebP or GIF image (got ${declared || 'no Content-Type'}).`, [
      { path: 'body', message: 'is not a PNG, JPEG, WebP or GIF image' },
    ]);
  throw errors.invalidField('body', `is not a PNG, JPEG, WebP or GIF image (its bytes are not those of ${declared})`);
}

/** Sets the person's picture (replacing any): its bytes kept, its URL the person's avatarImageUrl. */
export async function setAvatar(
  database: Database,
  portalUrl: string,
  session: ActiveSession,
  upload: { bytes: Buffer; declaredType: string },
  attempt: Attempt,
): Promise<Profile> {
  if (upload.bytes.length > MAX_IMAGE_BYTES) throw errors.payloadTooLarge(MAX_IMAGE_BYTES);
  const contentType = imageType(upload.bytes, upload.declaredType);
  const hash = createHash('sha256').update(upload.bytes).digest('hex');
  const { person } = session;
  const caller = await callerOf(database, session, attempt);
  const own = await unitOfWork(
    database,
    async (work) => {
      const changed = await changeOwnProfile(work, caller, person, {
        avatarImageUrl: avatarUrl(portalUrl, person.workspaceId, person.id, hash),
      });
      repo.replaceAvatar(work, caller.access, person, {
        id: randomUUID(),
        hash,
        contentType,
        bytes: upload.bytes,
        at: isoAt(caller.actor.at),
      });
      return changed;
    },
    { transaction: true },
  );
  return view(session, own);
}

/** Removes the person's picture (its URL then a 404); nothing to remove is no error. */
export async function removeAvatar(database: Database, session: ActiveSession, attempt: Attempt): Promise<Profile> {
  const caller = await callerOf(database, session, attempt);
  const own = await unitOfWork(
    database,
    async (work) => {
      const changed = await changeOwnProfile(work, caller, session.person, { avatarImageUrl: null });
      repo.deleteAvatar(work, caller.access, session.person);
      return changed;
    },
    { transaction: true },
  );
  return view(session, own);
}

/** A picture by its URL's parts: the person's current one, of this workspace, with this hash; else a 404. */
export async function avatarContent(database: Database, workspaceId: string, personId: string, hash: string): Promise<repo.StoredAvatar> {
  const avatar = await repo.findAvatar(database.db, workspaceAccess(workspaceId), personId, hash);
  if (!avatar) throw errors.notFound('Picture');
  return avatar;
}
