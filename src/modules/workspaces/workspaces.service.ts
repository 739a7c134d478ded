import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import { type Clock, isoAt } from '../../lib/clock.js';
import { errors } from '../../lib/errors.js';
import { type CreatedApiKey, createApiKey } from '../api-keys/api-keys.service.js';
import * as repo from './workspaces.repository.js';

export const DEFAULT_DAILY_QUOTA = 2000;

export interface CreatedWorkspace {
  workspaceId: string;
  apiKeyId: string;
  apiKey: string;
}

function checkInput(input: { name?: string; dailyQuota?: number }) {
  if (input.name !== undefined && !input.name.trim()) throw errors.invalidField('name', 'must not be empty');
  if (input.dailyQuota !== undefined && (!Number.isInteger(input.dailyQuota) || input.dailyQuota < 0)) {
    throw errors.invalidField('dailyQuota', 'must be a non-negative integer');
  }
}

/** Creates a workspace and its first workspace key, in one transaction. */
export async function createWorkspace(
  db: Kysely<DB>,
  input: { name: string; dailyQuota?: number },
  clock: Clock,
): Promise<CreatedWorkspace> {
  checkInput(input);
  const name = input.name.trim();
  const dailyQuota = input.dailyQuota ?? DEFAULT_DAILY_QUOTA;
  return db.transaction().execute(async (trx) => {
    const workspaceId = randomUUID();
    const at = isoAt(clock.now());
    await repo.insertWorkspace(trx, { id: workspaceId, name, daily_quota: dailyQuota, created_at: at, updated_at: at });
    const key: CreatedApiKey = await createApiKey(trx, workspaceId, { kind: 'workspace' }, clock);
    return { workspaceId, apiKeyId: key.apiKeyId, apiKey: key.apiKey };
  });
}

/** Renames a workspace or changes its daily quota (effective from the next request). */
export async function updateWorkspace(db: Kysely<DB>, workspaceId: string, input: { name?: string; dailyQuota?: number }, clock: Clock) {
  checkInput(input);
  const changes = {
    ...(input.name !== undefined ? { name: input.name.trim() } : {}),
    ...(input.dailyQuota !== undefined ? { daily_quota: input.dailyQuota } : {}),
    updated_at: isoAt(clock.now()),
  };
  const row = await repo.updateWorkspace(db, workspaceId, changes);
  if (!row) throw errors.notFound('Workspace');
  return { workspaceId: row.id, name: row.name, dailyQuota: row.daily_quota };
}
