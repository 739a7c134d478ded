import type { Database } from '../../db/database.js';
import type { Page, PageTokens } from '../../db/paging.js';
import type { Caller } from '../../lib/caller.js';
import * as repo from './email-outbox.repository.js';
import type { OutboxEmail, OutboxListQuery } from './email-outbox.schemas.js';

/** The workspace's outbox, newest first (the operator's surfaces check the workspace exists). */
export async function listOutbox(
  database: Database,
  caller: Caller,
  query: OutboxListQuery,
  tokens: PageTokens,
): Promise<Page<OutboxEmail>> {
  return repo.listOutbox(database.db, caller.access, query, tokens);
}
