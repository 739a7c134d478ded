import type { Database } from '../../../db/database.js';
import type { Page, PageTokens } from '../../../db/paging.js';
import type { Caller } from '../../../lib/caller.js';
import * as repo from './email-outbox.repository.js';
import type { OutboxEmail, OutboxListQuery } from './email-outbox.schemas.js';

/**
 * The workspace's outbox, newest first (the operator's surfaces check the workspace exists). Without SMTP the
 * e-mails never leave, so their text (sign-in, reset and invite links) is shown: the only inbox local development
 * has. With SMTP it never is: those links are on their way to someone else, and open their accounts.
 */
export function listOutbox(
  database: Database,
  caller: Caller,
  query: OutboxListQuery,
  tokens: PageTokens,
  smtp: { smtpUrl: string | undefined },
): Promise<Page<OutboxEmail>> {
  return repo.listOutbox(database.db, caller.access, query, tokens, smtp.smtpUrl === undefined);
}
