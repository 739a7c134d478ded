import type { Statement } from './database.js';

/**
 * Every table, parents before children: the order the migrations create them in, so each foreign key
 * points up this list (src/db/merged-inserts.test.ts holds every migration to it). A new table goes here too.
 */
export const TABLES_PARENTS_FIRST: readonly string[] = [
  'server_secrets',
  'server_settings',
  'workspaces',
  'api_keys',
  'companies',
  'clients',
  'client_companies',
  'internal_users',
  'custom_fields',
  'custom_field_options',
  'audit_log',
  'quota_usage',
  'bearer_tokens',
  'sessions',
  'idempotency_keys',
  'installs',
  'app_connections',
  'app_connection_members',
  'notification_preferences',
  'notifications',
  'email_outbox',
  'audit_sessions',
  'webhook_endpoints',
  'webhook_deliveries',
  'webhook_attempts',
  'products',
  'prices',
  'invoice_templates',
  'subscription_templates',
  'invoice_counters',
  'subscriptions',
  'invoices',
  'payments',
  'payment_methods',
  'refunds',
  'console_session_revocations',
  'message_channels',
  'message_channel_members',
  'message_sequences',
  'messages',
  'task_templates',
  'tasks',
  'notes',
  'file_channels',
  'file_channel_members',
  'files',
  'forms',
  'form_versions',
  'form_responses',
  'contract_templates',
  'contracts',
  'sign_in_sessions',
  'sign_in_links',
  'sign_in_credentials',
  'sign_in_identities',
  'portal_app_keys',
  'avatars',
  'qa_principals',
  'app_api_resources',
  'app_builder_secrets',
  'workspace_logos',
  'client_search_terms',
  'company_search_terms',
];
const RANK = new Map(TABLES_PARENTS_FIRST.map((table, i) => [table, i]));

/** A single-row insert as Kysely compiles it for PostgreSQL: its table and its tuple of placeholders. */
const SINGLE_ROW_INSERT = /^insert into "([a-z_]+)" \([^)]*\) values (\(\$1(?:, \$\d+)*\))$/;
/** Rows of one multi-row insert: PostgreSQL takes at most 65,535 parameters a statement. */
const MAX_ROWS = 500;
const MAX_PARAMETERS = 30_000;

/** A plain single-row insert's table rank (its place in TABLES_PARENTS_FIRST); undefined for anything else. */
function rankOf(statement: Statement): number | undefined {
  const table = statement.onRow ? undefined : SINGLE_ROW_INSERT.exec(statement.sql)?.[1];
  return table === undefined ? undefined : RANK.get(table);
}

/** Whether every statement is a plain single-row insert of a listed table: what mergeInserts merges. */
export const onlyMergeableInserts = (statements: readonly Statement[]) => statements.every((s) => rankOf(s) !== undefined);

/**
 * A batch of single-row inserts as few statements as can be (PostgreSQL, where each statement is a round
 * trip): table by table, parents first, so foreign keys hold whatever order the rows were queued in;
 * each table's rows in queue order; each run of one insert merged into multi-row inserts. A batch with
 * anything else (an update, a RETURNING, a table not listed) is returned as it is. Atomicity is the
 * batch's either way: its statements run in one transaction.
 */
export function mergeInserts(statements: readonly Statement[]): readonly Statement[] {
  if (statements.length < 2) return statements;
  const parsed: { statement: Statement; rank: number; queued: number }[] = [];
  for (const [queued, statement] of statements.entries()) {
    const rank = rankOf(statement);
    if (rank === undefined) return statements;
    parsed.push({ statement, rank, queued });
  }
  parsed.sort((a, b) => a.rank - b.rank || a.queued - b.queued);
  const merged: Statement[] = [];
  for (let i = 0; i < parsed.length; ) {
    const first = parsed[i].statement;
    const width = first.parameters.length;
    const most = Math.max(1, Math.min(MAX_ROWS, Math.floor(MAX_PARAMETERS / Math.max(1, width))));
    let rows = 1;
    while (i + rows < parsed.length && rows < most && parsed[i + rows].statement.sql === first.sql) rows++;
    merged.push(rows === 1 ? first : multiRow(parsed.slice(i, i + rows).map((p) => p.statement)));
    i += rows;
  }
  return merged;
}

/** One insert of the rows of several single-row inserts of one SQL text. */
function multiRow(rows: readonly Statement[]): Statement {
  const [first] = rows;
  const width = first.parameters.length;
  const head = first.sql.slice(0, first.sql.lastIndexOf(' values (') + ' values '.length);
  const tuples = rows.map((_, r) => `(${Array.from({ length: width }, (_, c) => `$${r * width + c + 1}`).join(', ')})`);
  return {
    sql: head + tuples.join(', '),
    parameters: rows.flatMap((row) => row.parameters),
    ...(first.name ? { name: `${first.name}*${rows.length}` } : {}),
  };
}
