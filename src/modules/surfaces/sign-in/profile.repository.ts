import type { Kysely } from 'kysely';
import type { DB } from '../../../db/schema.js';
import type { UnitOfWork } from '../../../db/unit-of-work.js';
import type { Access } from '../../../lib/caller.js';
import type { PersonRef } from './sign-in.repository.js';

/**
 * People's pictures (the portal's account page): one row per person at most, its bytes kept here, removed with the
 * person by its foreign key. The person's `avatar_image_url` (its module's column) names the row by `content_hash`.
 */

/** A stored picture, as served. */
export interface StoredAvatar {
  contentType: string;
  bytes: Buffer;
}

/** The picture of this person of the access's workspace whose content has this hash, or undefined (none, or another). */
export async function findAvatar(db: Kysely<DB>, access: Access, personId: string, hash: string): Promise<StoredAvatar | undefined> {
  const row = await db
    .selectFrom('avatars')
    .select(['content_type', 'bytes'])
    .where('workspace_id', '=', access.workspaceId)
    .where((eb) => eb.or([eb('client_id', '=', personId), eb('internal_user_id', '=', personId)]))
    .where('content_hash', '=', hash)
    .executeTakeFirst();
  return row && { contentType: row.content_type, bytes: Buffer.from(row.bytes) };
}

/** The person's picture replaced by this one (its previous one, if any, deleted in the same unit). */
export function replaceAvatar(
  work: UnitOfWork,
  access: Access,
  person: PersonRef,
  avatar: { id: string; hash: string; contentType: string; bytes: Uint8Array; at: string },
): void {
  deleteAvatar(work, access, person);
  work.write(
    work.db.insertInto('avatars').values({
      id: avatar.id,
      workspace_id: access.workspaceId,
      client_id: person.type === 'client' ? person.id : null,
      internal_user_id: person.type === 'internalUser' ? person.id : null,
      content_hash: avatar.hash,
      content_type: avatar.contentType,
      byte_size: avatar.bytes.length,
      bytes: avatar.bytes,
      created_at: avatar.at,
    }),
  );
}

/** The person's picture deleted (nothing when it has none). */
export function deleteAvatar(work: UnitOfWork, access: Access, person: PersonRef): void {
  work.write(
    work.db
      .deleteFrom('avatars')
      .where('workspace_id', '=', access.workspaceId)
      .where(person.type === 'client' ? 'client_id' : 'internal_user_id', '=', person.id),
  );
}
