import type { Kysely } from 'kysely';
import type { DB, WorkspacesTable } from '../../db/schema.js';

export async function insertWorkspace(db: Kysely<DB>, row: WorkspacesTable) {
  await db.insertInto('workspaces').values(row).execute();
}

export function findWorkspace(db: Kysely<DB>, workspaceId: string) {
  return db.selectFrom('workspaces').selectAll().where('id', '=', workspaceId).executeTakeFirst();
}

export async function countWorkspaces(db: Kysely<DB>): Promise<number> {
  const row = await db.selectFrom('workspaces').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function updateWorkspace(db: Kysely<DB>, workspaceId: string, changes: Partial<WorkspacesTable>) {
  await db.updateTable('workspaces').set(changes).where('id', '=', workspaceId).execute();
  return findWorkspace(db, workspaceId);
}
