import type { Database } from '../../db/database.js';
import type { Page, PageTokens } from '../../db/paging.js';
import type { Caller } from '../../lib/caller.js';
import { getWorkspace } from '../workspaces/workspaces.service.js';
import * as repo from './email-outbox.repository.js';
import type { OutboxEmail, OutboxListQuery } from './email-outbox.schemas.js';

/** The workspace's outbox, newest first (an unknown workspace is a 404). */
export async function listOutbox(
  database: Database,
  caller: Caller,
  query: OutboxListQuery,
  tokens: PageTokens,
): Promise<Page<OutboxEmail>> {
  await getWorkspace(database, caller);
  return repo.listOutbox(database.db, caller.access, query, tokens);
}
