import type { Database } from '../../../db/database.js';
import { listAs } from '../../../db/paging.js';
import { unitOfWork } from '../../../db/unit-of-work.js';
import { type Access, type Caller, workspaceAccess } from '../../../lib/caller.js';
import { isoAt } from '../../../lib/clock.js';
import { errors, orNotFound } from '../../../lib/errors.js';
import type { UnitOfWork } from '../../../db/unit-of-work.js';
import { newRowId } from '../../../lib/row-id.js';
import { coreInstalls, sortKeyOf } from './core-modules.js';
import * as repo from './installs.repository.js';
import type { Install, InstallCreate } from './installs.schemas.js';

export const listInstalls = listAs(repo.listInstalls);

/** An install of the workspace (a client session sees only published ones), or 404. */
export async function getInstall(database: Database, caller: Caller, id: string): Promise<Install> {
  return orNotFound(await repo.findInstall(database.db, caller.access, id), 'Install');
}

const APP_BACKED = new Set(['custom', 'marketplace']);
/** The installs that open at a URL of their own: an app's page (the portal frames it), a link's destination. */
const OPENED_AT_A_URL = new Set(['custom', 'marketplace', 'link']);

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/**
 * The origins the workspace's portal may frame: those of its published app installs' pages (a draft's stays
 * unknown to the portal's visitors, as the draft is to clients).
 */
export async function appOrigins(database: Database, workspaceId: string): Promise<string[]> {
  const urls = await repo.publishedAppUrls(database.db, workspaceAccess(workspaceId));
  const origins = new Set<string>();
  for (const url of urls) if (isHttpUrl(url)) origins.add(new URL(url).origin);
  return [...origins].sort();
}

/**
 * Installs an app, an embed, a link or a manual app at the end of the sidebar (operators only: the CLI
 * and the admin surface). Custom and marketplace installs name their app; the others have none. A
 * draft is an app-builder (custom) install, hidden from clients until published.
 */
export async function createInstall(database: Database, caller: Caller, input: InstallCreate): Promise<{ id: string }> {
  if (APP_BACKED.has(input.type) && input.appId === undefined) {
    throw errors.invalidField('body.appId', `is required for a ${input.type} install`);
  }
  if (!APP_BACKED.has(input.type) && input.appId !== undefined) {
    throw errors.invalidField('body.appId', `must be absent for a ${input.type} install (it has no app)`);
  }
  if (input.draft && input.type !== 'custom') throw errors.invalidField('body.draft', 'applies only to custom (app builder) installs');
  if (input.url !== undefined && !OPENED_AT_A_URL.has(input.type))
    throw errors.invalidField('body.url', 'is only for custom, marketplace and link installs (an app’s page, a link’s destination)');
  if (input.url !== undefined && !isHttpUrl(input.url)) throw errors.invalidField('body.url', 'must be an http(s) URL');
  const sort = await repo.nextSort(database.db, caller.access);
  const at = isoAt(caller.actor.at);
  const id = newRowId();
  const name = input.name.trim();
  await unitOfWork(database, async (work) => {
    repo.insertInstalls(work, caller.access, [
      {
        id,
        type: input.type,
        status: input.draft ? 'draft' : 'published',
        display_name: name,
        icon: '',
        app_id: input.appId ?? null,
        embed_link: input.url ?? null,
        path: '',
        sort,
        sort_key: sortKeyOf(sort),
        created_at: at,
        updated_at: at,
      },
    ]);
  });
  return { id };
}

/** Publishes a draft (a published install stays published): from then on clients see it. */
export async function publishInstall(database: Database, caller: Caller, id: string): Promise<{ id: string; status: 'published' }> {
  const install = orNotFound(await repo.findInstall(database.db, caller.access, id), 'Install');
  if (install.status === 'draft') {
    await unitOfWork(database, async (work) => repo.publishInstall(work, caller.access, install.id, isoAt(caller.actor.at)));
  }
  return { id: install.id, status: 'published' };
}

/** A new workspace's core modules, installed in the workspace's own unit of work. */
export function installCoreModules(work: UnitOfWork, access: Access, at: string): void {
  repo.insertInstalls(work, access, coreInstalls(access.workspaceId, at));
}
