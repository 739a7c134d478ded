// The few internals that tests check directly because no API reaches them the same way: the paging helper
// (unit-tested on a table of its own), a hot-path read beside a transaction, and the audit actor a request
// yields for a principal that has no write of its own yet. Imported here only, so a refactor adapts one file.
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { fetchPage, pageScope } from '../../src/db/paging.js';
import type { DB } from '../../src/db/schema.js';
import { unitOfWork } from '../../src/db/unit-of-work.js';
import { workspaceAccess } from '../../src/lib/caller.js';
import { findClient } from '../../src/modules/resources/directory/index.js';
import { recordAudit } from '../../src/audit/index.js';
import type { Harness } from './types.js';

export type TestDb = Kysely<DB>;

/**
 * One page of the workspace's api_keys rows through the shared paging helper (db/paging.ts), newest first,
 * bound to the list `keys` and `filters`; rejects with a 400 for a token that is not of this list.
 */
export function pageOfKeys(
  h: Harness,
  workspaceId: string,
  request: { limit?: number; nextToken?: string },
  filters: Record<string, unknown> = {},
) {
  const query = h.app.ctx.db.selectFrom('api_keys').select(['id', 'created_at']).where('workspace_id', '=', workspaceId);
  return fetchPage(
    query,
    'api_keys',
    request,
    h.app.ctx.pageTokens,
    pageScope({ workspaceId, clientId: null, companyIds: null }, 'keys', filters),
    (row) => row,
  );
}

/** The client as the hot path reads it (a prepared query outside a transaction, or on `db` = a transaction). */
export function readClientRow(db: TestDb, workspaceId: string, clientId: string) {
  return findClient(db, workspaceAccess(workspaceId), clientId);
}

/**
 * Registers `GET /v1/test-audit` (for HarnessOptions.extraV1Routes), reachable by client sessions, which records a
 * `customEvent` audit entry with the actor the request yields: audit actors of principals that cannot write yet.
 */
export function auditProbeRoute(v1: FastifyInstance) {
  v1.get('/test-audit', { config: { policy: { clientSession: 'read' } } }, async (request) => {
    await unitOfWork(v1.ctx.database, async (work) =>
      recordAudit(work, request.caller.actor, { eventType: 'customEvent', description: 'test' }),
    );
    return { ok: true };
  });
}

/** The ids of the message rows a channel still has, whoever could read them: what a channel's deletion must leave none of. */
export async function messageRowsOf(h: Harness, channelId: string): Promise<string[]> {
  const rows = await h.app.ctx.db.selectFrom('messages').select('id').where('channel_id', '=', channelId).orderBy('id').execute();
  return rows.map((row) => row.id);
}

/** A stream cursor this server would make for a position of the workspace's messages (one no event showed yet). */
export const streamCursorAt = (h: Harness, workspaceId: string, position: number): string =>
  h.app.ctx.events.cursors.encode(workspaceId, position);

/** How many event streams are open on this app instance. */
export const openStreams = (app: FastifyInstance): number => app.ctx.events.streams.size;
