import { createHash } from 'node:crypto';
import type { Database } from '../../../db/database.js';
import { unitOfWork } from '../../../db/unit-of-work.js';
import { type Caller, workspaceAccess } from '../../../lib/caller.js';
import { isoAt } from '../../../lib/clock.js';
import { errors, orNotFound } from '../../../lib/errors.js';
import { fallbackColorFor } from '../../../lib/fallback-color.js';
import { imageSize } from '../../../lib/image-size.js';
import { MAX_IMAGE_BYTES, sniffImage } from '../../../lib/images.js';
import * as repo from './workspaces.repository.js';
import type { LogoImage } from './workspaces.repository.js';
import type { Workspace } from './workspaces.schemas.js';

/**
 * A workspace's logo (issue 44): set by the operator as an image's bytes, kept in the database, served publicly under
 * the workspace's portal at a path named by the bytes' SHA-256 (a new logo is a new path, so an old one may be cached
 * for good), and shown beside the workspace's name in its portal's bar, its e-mails and its documents.
 */

/** The same-origin path a logo is served at (the sign-in API's `GET /workspace/logo/{hash}`). */
export const logoPath = (workspaceId: string, hash: string) => `/portal/${workspaceId}/api/workspace/logo/${hash}`;

const TAKEN = 'a PNG, JPEG, WebP or GIF image';

/**
 * The logo that `bytes` make, checked before anything is written: some bytes (400), at most MAX_IMAGE_BYTES (413),
 * one of the image types taken, read from the bytes whatever the request declared (415; SVG never), and a header that
 * says the image's size (400). Every refusal names the body.
 */
export function logoOf(bytes: Buffer): LogoImage {
  if (bytes.length === 0) throw errors.invalidField('body', `is empty: send the bytes of ${TAKEN}`);
  if (bytes.length > MAX_IMAGE_BYTES) throw errors.payloadTooLarge(MAX_IMAGE_BYTES);
  const contentType = sniffImage(bytes);
  if (contentType === null) {
    const problem = `is not ${TAKEN} (its type is read from its bytes; SVG is never taken)`;
    throw errors.unsupportedMediaType(`body ${problem}`, [{ path: 'body', message: problem }]);
  }
  const size = imageSize(bytes, contentType);
  if (size === null) throw errors.invalidField('body', `is not a whole image: its header gives no size`);
  return { hash: createHash('sha256').update(bytes).digest('hex'), contentType, ...size, bytes };
}

/** Sets or replaces the workspace's logo (operator): the workspace, its `updatedAt` moved. */
export async function setLogo(database: Database, caller: Caller, logo: LogoImage): Promise<Workspace> {
  return unitOfWork(
    database,
    async (work) => {
      const workspace = orNotFound(await repo.findWorkspace(work.db, caller.access), 'Workspace');
      const at = isoAt(caller.actor.at);
      repo.putLogo(work, caller.access, logo, at);
      return { ...workspace, updatedAt: at };
    },
    { transaction: true },
  );
}

/** Removes the workspace's logo (operator; none set: nothing changes but `updatedAt`). */
export async function removeLogo(database: Database, caller: Caller): Promise<Workspace> {
  return unitOfWork(
    database,
    async (work) => {
      const workspace = orNotFound(await repo.findWorkspace(work.db, caller.access), 'Workspace');
      const at = isoAt(caller.actor.at);
      repo.deleteLogo(work, caller.access, at);
      return { ...workspace, updatedAt: at };
    },
    { transaction: true },
  );
}

/** The logo a portal shows: its same-origin path and its size in pixels; undefined when the workspace has none. */
export async function portalLogo(database: Database, workspaceId: string) {
  const logo = await repo.findLogo(database.db, workspaceAccess(workspaceId));
  return logo && { path: logoPath(workspaceId, logo.hash), width: logo.width, height: logo.height };
}

/** The logo's bytes and type, only while `hash` names the workspace's logo (an older or another's hash: undefined). */
export async function logoImage(database: Database, workspaceId: string, hash: string) {
  const logo = await repo.findLogoImage(database.db, workspaceAccess(workspaceId), hash);
  return logo && { contentType: logo.contentType, bytes: logo.bytes };
}

/** The absolute URLs (under PORTAL_URL) of these workspaces' logos, by workspace: the operator's view. */
export async function logoUrls(database: Database, portalUrl: string, workspaceIds: readonly string[]): Promise<Map<string, string>> {
  const hashes = await repo.logoHashes(database.db, workspaceIds);
  return new Map([...hashes].map(([id, hash]) => [id, portalUrl + logoPath(id, hash)]));
}

/**
 * Who a workspace's e-mails come from, as their HTML part shows it: its name, its colour (the set one, else the one
 * derived from its id) and its logo (an absolute URL under PORTAL_URL, and its size); undefined when it is gone.
 */
export async function emailBrand(database: Database, workspaceId: string, portalUrl: string) {
  const access = workspaceAccess(workspaceId);
  const [workspace, logo] = await Promise.all([repo.findWorkspace(database.db, access), repo.findLogo(database.db, access)]);
  if (!workspace) return undefined;
  return {
    name: workspace.name,
    color: workspace.brandColor ?? fallbackColorFor(workspace.id),
    ...(logo ? { logo: { url: portalUrl + logoPath(workspaceId, logo.hash), width: logo.width, height: logo.height } } : {}),
  };
}
