// Who may write where in a file channel, and who a change is recorded as.
import type { Database } from '../../../db/database.js';
import { type Access, type Caller, isClient, ownUserOf } from '../../../lib/caller.js';
import { orNotFound } from '../../../lib/errors.js';
import { parentPath } from './file-paths.js';
import * as repo from './files.repository.js';
import type { FileObject } from './files.schemas.js';

/** Who a change is recorded as on the object: a person's own user (lib/caller.ts; a session, or signed in); a key: nobody. */
export function modifierOf(caller: Caller): FileObject['lastModifiedBy'] {
  const own = ownUserOf(caller);
  return own && { id: own.id, object: own.type };
}

/**
 * Whether the caller may write where an object is or goes: staff anywhere in the channels they see; a
 * client (a session, or signed in) only where clients may write (the folder holding it, or the channel's root).
 */
export function mayWrite(caller: Caller, channel: repo.ChannelScope, parent: FileObject | undefined): boolean {
  return !isClient(caller.principal) || clientsMayWrite(channel, parent);
}

/** Whether clients may write in the folder (or, without one, the channel's root). */
function clientsMayWrite(channel: repo.ChannelScope, parent: FileObject | undefined): boolean {
  return parent ? parent.clientPermissions === 'read-write' : channel.rootClientPermissions === 'read_write';
}

/** Whether clients may still write where the file is now (its folder, or the channel's root), at the time of its upload. */
export async function clientsMayWriteAt(database: Database, access: Access, file: FileObject): Promise<boolean> {
  const channel = orNotFound(await repo.findChannelScope(database.db, access, file.channelId), 'File');
  const folderPath = parentPath(file.path);
  const parent = folderPath === undefined ? undefined : await repo.findFolder(database.db, access, channel.id, folderPath);
  return clientsMayWrite(channel, parent?.file);
}
