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

/** Creates a workspace and its first workspace key, in one transaction. */
export async function createWorkspace(
  db: Kysely<DB>,
  input: { name: string; dailyQuota?: number },
  clock: Clock,
): Promise<CreatedWorkspace> {
  const name = input.name.trim();
  if (!name) throw errors.invalidField('name', 'must not be empty');
  const dailyQuota = input.dailyQuota ?? DEFAULT_DAILY_QUOTA;
  if (!Number.isInteger(dailyQuota) || dailyQuota < 0) throw errors.invalidField('dailyQuota', 'must be a non-negative integer');
  return db.transaction().execute(async (trx) => {
    const workspaceId = randomUUID();
    const at = isoAt(clock.now());
    await repo.insertWorkspace(trx, { id: workspaceId, name, daily_quota: dailyQuota, created_at: at, updated_at: at });
    const key: CreatedApiKey = await createApiKey(trx, workspaceId, { kind: 'workspace' }, clock);
    return { workspaceId, apiKeyId: key.apiKeyId, apiKey: key.apiKey };
  });
}
