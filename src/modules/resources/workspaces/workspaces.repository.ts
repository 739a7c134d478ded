import { sql, type Kysely } from 'kysely';
import { type Page, type PageRequest, type PageTokens, fetchPage } from '../../../db/paging.js';
import type { DB, WorkspacesTable } from '../../../db/schema.js';
import { lockedForUpdate } from '../../../db/rows.js';
import type { UnitOfWork } from '../../../db/unit-of-work.js';
import type { Access } from '../../../lib/caller.js';
import type { Workspace } from './workspaces.schemas.js';

const toWorkspace = (row: WorkspacesTable): Workspace => ({
  id: row.id,
  object: 'workspace',
  name: row.name,
  dailyQuota: row.daily_quota,
  staffMfaRequired: row.staff_mfa_required === 1,
  sandbox: row.sandbox === 1,
  ...(row.brand_color === null ? {} : { brandColor: row.brand_color }),
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

export function insertWorkspace(work: UnitOfWork, workspace: Workspace): void {
  work.write(
    work.db.insertInto('workspaces').values({
      id: workspace.id,
      name: workspace.name,
      daily_quota: workspace.dailyQuota,
      staff_mfa_required: workspace.staffMfaRequired ? 1 : 0,
      sandbox: workspace.sandbox ? 1 : 0,
      clock_offset_ms: 0,
      created_at: workspace.createdAt,
      updated_at: workspace.updatedAt,
    }),
  );
}

/** The workspace of this access (ids are text: a malformed one simply finds nothing). */
export async function findWorkspace(db: Kysely<DB>, access: Access): Promise<Workspace | undefined> {
  const row = await db.selectFrom('workspaces').selectAll().where('id', '=', access.workspaceId).executeTakeFirst();
  return row && toWorkspace(row);
}

/**
 * Inside a transaction, holds other processes' first-workspace check until it ends: on PostgreSQL a transaction
 * lock (READ COMMITTED would let two transactions each count none); SQLite lets one writer commit, and a second
 * that counted before it fails to write.
 */
export async function lockFirstWorkspace(db: Kysely<DB>, dialect: 'sqlite' | 'postgres'): Promise<void> {
  if (dialect === 'postgres') await sql`select pg_advisory_xact_lock(${FIRST_WORKSPACE_LOCK})`.execute(db);
}
/** The advisory lock's key: any fixed number no other lock of this service uses. */
const FIRST_WORKSPACE_LOCK = 7_031_001;

/** A workspace's clock: whether it is a sandbox, and how far its test clock is ahead of the server's (ms). */
export interface WorkspaceClock {
  sandbox: boolean;
  offsetMs: number;
}

export async function findClock(db: Kysely<DB>, workspaceId: string): Promise<WorkspaceClock | undefined> {
  const row = await db.selectFrom('workspaces').select(['sandbox', 'clock_offset_ms']).where('id', '=', workspaceId).executeTakeFirst();
  return row && { sandbox: row.sandbox === 1, offsetMs: Number(row.clock_offset_ms) };
}

/** The clock of this access's workspace, locked for the transaction (PostgreSQL), and its move forward. */
export async function findClockForUpdate(work: UnitOfWork, access: Access): Promise<WorkspaceClock | undefined> {
  const q = work.db.selectFrom('workspaces').select(['sandbox', 'clock_offset_ms']).where('id', '=', access.workspaceId);
  const row = await lockedForUpdate(q, work.database.dialect).executeTakeFirst();
  return row && { sandbox: row.sandbox === 1, offsetMs: Number(row.clock_offset_ms) };
}

export function setClockOffset(work: UnitOfWork, access: Access, offsetMs: number, at: string): void {
  work.write(work.db.updateTable('workspaces').set({ clock_offset_ms: offsetMs, updated_at: at }).where('id', '=', access.workspaceId));
}

/** The ids of the first `limit` workspaces (oldest first): whether a deployment has one workspace, and which. */
export async function firstWorkspaceIds(db: Kysely<DB>, limit: number): Promise<string[]> {
  const rows = await db.selectFrom('workspaces').select('id').orderBy('created_at').orderBy('id').limit(limit).execute();
  return rows.map((row) => row.id);
}

export async function countWorkspaces(db: Kysely<DB>): Promise<number> {
  const row = await db
    .selectFrom('workspaces')
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export function updateWorkspace(work: UnitOfWork, access: Access, workspace: Workspace): void {
  work.write(
    work.db
      .updateTable('workspaces')
      .set({
        name: workspace.name,
        daily_quota: workspace.dailyQuota,
        staff_mfa_required: workspace.staffMfaRequired ? 1 : 0,
        brand_color: workspace.brandColor ?? null,
        updated_at: workspace.updatedAt,
      })
      .where('id', '=', access.workspaceId),
  );
}

/** A workspace's logo as its pages and e-mails name it: without its bytes. */
export interface LogoRecord {
  hash: string;
  contentType: string;
  width: number;
  height: number;
}

/** A logo with its bytes: what is served, and drawn in documents. */
export interface LogoImage extends LogoRecord {
  bytes: Buffer;
}

const LOGO_COLUMNS = ['hash', 'content_type', 'width', 'height'] as const;
const toLogo = (row: { hash: string; content_type: string; width: number; height: number }): LogoRecord => ({
  hash: row.hash,
  contentType: row.content_type,
  width: Number(row.width),
  height: Number(row.height),
});

/** The logo of this access's workspace, if it has one (without its bytes). */
export async function findLogo(db: Kysely<DB>, access: Access): Promise<LogoRecord | undefined> {
  const row = await db.selectFrom('workspace_logos').select(LOGO_COLUMNS).where('workspace_id', '=', access.workspaceId).executeTakeFirst();
  return row && toLogo(row);
}

/** The logo of this access's workspace with its bytes; with `hash`, only if that is still its logo. */
export async function findLogoImage(db: Kysely<DB>, access: Access, hash?: string): Promise<LogoImage | undefined> {
  let query = db
    .selectFrom('workspace_logos')
    .select([...LOGO_COLUMNS, 'bytes'])
    .where('workspace_id', '=', access.workspaceId);
  if (hash !== undefined) query = query.where('hash', '=', hash);
  const row = await query.executeTakeFirst();
  return row && { ...toLogo(row), bytes: Buffer.from(row.bytes) };
}

/** The hashes of these workspaces' logos, by workspace (the operator's list). */
export async function logoHashes(db: Kysely<DB>, workspaceIds: readonly string[]): Promise<Map<string, string>> {
  if (workspaceIds.length === 0) return new Map();
  const rows = await db.selectFrom('workspace_logos').select(['workspace_id', 'hash']).where('workspace_id', 'in', workspaceIds).execute();
  return new Map(rows.map((row) => [row.workspace_id, row.hash]));
}

/** Sets (or replaces) the workspace's logo, and its `updated_at`. */
export function putLogo(work: UnitOfWork, access: Access, logo: LogoImage, at: string): void {
  const values = {
    hash: logo.hash,
    content_type: logo.contentType,
    width: logo.width,
    height: logo.height,
    bytes: logo.bytes,
    updated_at: at,
  };
  work.write(
    work.db
      .insertInto('workspace_logos')
      .values({ workspace_id: access.workspaceId, ...values })
      .onConflict((conflict) => conflict.column('workspace_id').doUpdateSet(values)),
  );
  work.write(work.db.updateTable('workspaces').set({ updated_at: at }).where('id', '=', access.workspaceId));
}

/** Removes the workspace's logo (none: nothing to remove), and sets its `updated_at`. */
export function deleteLogo(work: UnitOfWork, access: Access, at: string): void {
  work.write(work.db.deleteFrom('workspace_logos').where('workspace_id', '=', access.workspaceId));
  work.write(work.db.updateTable('workspaces').set({ updated_at: at }).where('id', '=', access.workspaceId));
}

/** Every workspace, newest first, a page at a time (the operator's list). */
export function listWorkspaces(db: Kysely<DB>, page: PageRequest, tokens: PageTokens): Promise<Page<Workspace>> {
  return fetchPage(
    db.selectFrom('workspaces').selectAll(),
    'workspaces',
    page,
    tokens,
    JSON.stringify(['operator', 'workspaces']),
    toWorkspace,
  );
}
