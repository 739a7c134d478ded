import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { isDatabaseBusy } from '../../../db/errors.js';
import type { Database } from '../../../db/database.js';
import { type UnitOfWork, unitOfWork } from '../../../db/unit-of-work.js';
import { type Caller, systemCaller } from '../../../lib/caller.js';
import { isoAt } from '../../../lib/clock.js';
import { credentialsChanged } from '../../../lib/credential-cache.js';
import { errors, orNotFound } from '../../../lib/errors.js';
import { fallbackColorFor } from '../../../lib/fallback-color.js';
import { isUuid } from '../../../lib/formats.js';
import type { Brand } from '../../../lib/pdf.js';
import { recordAudit } from '../../../audit/index.js';
import { addApiKey } from '../credentials/index.js';
import { installCoreModules } from '../installs/index.js';
import { logoPath, logoUrls } from './workspace-logo.service.js';
import * as repo from './workspaces.repository.js';
import type { OperatorWorkspace, Workspace, WorkspaceCreate, WorkspaceUpdate } from './workspaces.schemas.js';
import type { Page, PageRequest, PageTokens } from '../../../db/paging.js';
import type { LimitStore } from '../../../limits/limit-store.js';

const DEFAULT_DAILY_QUOTA = 2000;

export interface CreatedWorkspace {
  workspaceId: string;
  apiKeyId: string;
  apiKey: string;
}

/** Creates a workspace and its first workspace key, in one unit of work (the system acting on the new workspace). */
export async function createWorkspace(database: Database, input: WorkspaceCreate, now: number): Promise<CreatedWorkspace> {
  return unitOfWork(database, async (work) => addWorkspace(work, input, now));
}

/** A workspace, its core modules and its first key, written with `work`. */
function addWorkspace(work: UnitOfWork, input: WorkspaceCreate, now: number): CreatedWorkspace {
  const caller = systemCaller(randomUUID(), now);
  const at = isoAt(now);
  const workspace: Workspace = {
    id: caller.access.workspaceId,
    object: 'workspace',
    name: input.name.trim(),
    dailyQuota: input.dailyQuota ?? DEFAULT_DAILY_QUOTA,
    staffMfaRequired: false,
    sandbox: input.sandbox ?? false,
    createdAt: at,
    updatedAt: at,
  };
  repo.insertWorkspace(work, workspace);
  installCoreModules(work, caller.access, at);
  const key = addApiKey(work, caller, { kind: 'workspace' });
  return { workspaceId: workspace.id, apiKeyId: key.apiKeyId, apiKey: key.apiKey };
}

/** What the operator's view of workspaces reads besides them: the limit state, and PORTAL_URL for their logos' URLs. */
export interface OperatorView {
  limitStore: LimitStore;
  portalUrl: string;
}

/**
 * Workspaces as the operator sees them: with today's use of their quotas, read from the limit state (in process or
 * Redis) in one read, and their logos' URLs in one query; or, given `logoHashes`, those (what a change of the logo just
 * set, rather than what a change at the same time may have set since).
 */
export async function asOperatorWorkspaces(
  database: Database,
  view: OperatorView,
  workspaces: Workspace[],
  now: number,
  logoHashes?: ReadonlyMap<string, string>,
): Promise<OperatorWorkspace[]> {
  const ids = workspaces.map((workspace) => workspace.id);
  const [used, logos] = await Promise.all([
    view.limitStore.quotaUsedMany(ids, isoAt(now).slice(0, 10)),
    logoHashes
      ? new Map([...logoHashes].map(([id, hash]) => [id, view.portalUrl + logoPath(id, hash)]))
      : logoUrls(database, view.portalUrl, ids),
  ]);
  return workspaces.map((workspace, i) => {
    const logoUrl = logos.get(workspace.id);
    return { ...workspace, ...(logoUrl === undefined ? {} : { logoUrl }), usedToday: used[i] };
  });
}

/** The workspace of a deployment that has exactly one (a local one, a single business's), else undefined. */
export async function soleWorkspaceId(database: Database): Promise<string | undefined> {
  const ids = await repo.firstWorkspaceIds(database.db, 2);
  return ids.length === 1 ? ids[0] : undefined;
}

/** The operator's list of workspaces, newest first (`portal workspaces list`). */
export function listWorkspaces(database: Database, page: PageRequest, tokens: PageTokens): Promise<Page<Workspace>> {
  return repo.listWorkspaces(database.db, page, tokens);
}

/** The operator's list of workspaces, each with today's use of its quota and its logo's URL. */
export async function listOperatorWorkspaces(
  database: Database,
  view: OperatorView,
  page: PageRequest,
  tokens: PageTokens,
  now: number,
): Promise<Page<OperatorWorkspace>> {
  const listed = await repo.listWorkspaces(database.db, page, tokens);
  return { ...listed, data: await asOperatorWorkspaces(database, view, listed.data, now) };
}

/** Types of logo documents draw: those pdfkit reads (a WebP or GIF logo is left out of them). */
const DOCUMENT_LOGO_TYPES = new Set(['image/png', 'image/jpeg']);

/**
 * The caller's workspace as its documents show it (invoice and contract PDFs): its name, its brand colour or one
 * derived from its id, and its logo when it is a PNG or a JPEG.
 */
export async function documentBrand(database: Database, caller: Caller): Promise<Brand> {
  const [workspace, logo] = await Promise.all([getWorkspace(database, caller), repo.findLogoImage(database.db, caller.access)]);
  return {
    name: workspace.name,
    color: workspace.brandColor ?? fallbackColorFor(workspace.id),
    ...(logo && DOCUMENT_LOGO_TYPES.has(logo.contentType) ? { logo: { bytes: logo.bytes, width: logo.width, height: logo.height } } : {}),
  };
}

/** Renames a workspace or changes its quota (operator): the workspace answered as the operator sees it. */
export async function updateOperatorWorkspace(
  database: Database,
  view: OperatorView,
  caller: Caller,
  input: WorkspaceUpdate,
): Promise<OperatorWorkspace> {
  const [updated] = await asOperatorWorkspaces(database, view, [await updateWorkspace(database, caller, input)], caller.actor.at);
  return updated;
}

/**
 * The operator (the `portal` command, the admin surface) acting on a workspace as the system: an unknown
 * or malformed id is a 404 here, once, before anything is read or written; the services trust it after. Its time
 * is the workspace's: `now` (the server's) plus a sandbox's test clock offset.
 */
export async function operatorCaller(database: Database, workspaceId: string, now: number): Promise<Caller> {
  if (!isUuid(workspaceId)) throw errors.notFound('Workspace');
  const clock = orNotFound(await repo.findClock(database.db, workspaceId), 'Workspace');
  return systemCaller(workspaceId, now + clock.offsetMs);
}

export async function getWorkspace(database: Database, caller: Caller): Promise<Workspace> {
  return orNotFound(await repo.findWorkspace(database.db, caller.access), 'Workspace');
}

/** Renames a workspace or changes its daily quota (effective from the next request). */
export async function updateWorkspace(database: Database, caller: Caller, input: WorkspaceUpdate): Promise<Workspace> {
  return unitOfWork(
    database,
    async (work) => {
      const previous = orNotFound(await repo.findWorkspace(work.db, caller.access), 'Workspace');
      const workspace: Workspace = {
        ...previous,
        name: input.name?.trim() ?? previous.name,
        dailyQuota: input.dailyQuota ?? previous.dailyQuota,
        staffMfaRequired: input.staffMfaRequired ?? previous.staffMfaRequired,
        ...(input.brandColor === undefined ? {} : { brandColor: input.brandColor.toLowerCase() }),
        updatedAt: isoAt(caller.actor.at),
      };
      repo.updateWorkspace(work, caller.access, workspace);
      if (workspace.staffMfaRequired !== previous.staffMfaRequired) {
        recordAudit(work, caller.actor, {
          eventType: workspace.staffMfaRequired ? 'workspaceMfaEnabled' : 'workspaceMfaDisabled',
          description: `TOTP ${workspace.staffMfaRequired ? 'required' : 'no longer required'} of internal users`,
          context: { staffMfaRequired: workspace.staffMfaRequired },
          previousAttributes: { staffMfaRequired: previous.staffMfaRequired },
          subject: { object: 'workspace', id: workspace.id, data: workspace },
        });
      }
      work.onCommit(() => credentialsChanged(database)); // the quota is part of every cached principal
      return workspace;
    },
    { transaction: true },
  );
}

/** The first start of an empty database creates a workspace to begin with; undefined when one exists. */
export async function createFirstWorkspace(database: Database, now: number): Promise<CreatedWorkspace | undefined> {
  if ((await repo.countWorkspaces(database.db)) > 0) return undefined;
  // Processes started together on an empty database: the count and the creation in one transaction, one at a time.
  for (let attempt = 1; ; attempt++) {
    try {
      return await unitOfWork(
        database,
        async (work) => {
          await repo.lockFirstWorkspace(work.db, database.dialect);
          return (await repo.countWorkspaces(work.db)) > 0 ? undefined : addWorkspace(work, { name: 'My workspace' }, now);
        },
        { transaction: true },
      );
    } catch (error) {
      // SQLite: another process's first workspace committed after this one counted, and this write was refused; or
      // it is still committing (its write lock refused this one's at once): counted again once it has, shortly.
      if ((await repo.countWorkspaces(database.db)) > 0) return undefined;
      if (!isDatabaseBusy(error) || attempt === FIRST_WORKSPACE_ATTEMPTS) throw error;
      await sleep(50);
    }
  }
}

/** Tries at making the first workspace while another process holds SQLite's write lock (50 ms apart: 5 s at most). */
const FIRST_WORKSPACE_ATTEMPTS = 100;
