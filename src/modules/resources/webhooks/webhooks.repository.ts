import type { Kysely } from 'kysely';
import type { DialectName } from '../../../db/database.js';
import { type Page, type PageTokens, fetchPage, pageScope } from '../../../db/paging.js';
import { skipLocked } from '../../../db/rows.js';
import type { UnitOfWork } from '../../../db/unit-of-work.js';
import type { DB, WebhookAttemptsTable, WebhookDeliveriesTable, WebhookEndpointsTable } from '../../../db/schema.js';
import type { Access } from '../../../lib/caller.js';
import { isoAt } from '../../../lib/clock.js';
import type { DeliveryListQuery, WebhookDelivery, WebhookEndpoint } from './webhooks.schemas.js';

export const ALL_EVENTS = '*';

function toEndpoint(row: WebhookEndpointsTable): WebhookEndpoint {
  return {
    id: row.id,
    object: 'webhookEndpoint',
    url: row.url,
    eventTypes: row.event_types.split(','),
    description: row.description,
    enabled: row.enabled === 1,
    disabledReason: row.disabled_reason,
    failingSince: row.failing_since,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export const webhookIdOf = (eventId: string) => `msg_${eventId.replaceAll('-', '')}`;

function toDelivery(row: WebhookDeliveriesTable, log: WebhookAttemptsTable[]): WebhookDelivery {
  return {
    id: row.id,
    object: 'webhookDelivery',
    endpointId: row.endpoint_id,
    webhookId: webhookIdOf(row.event_id),
    eventType: row.event_type,
    status: row.status,
    attempts: row.attempts,
    nextAttemptAt: row.status === 'pending' ? row.next_attempt_at : null,
    lastStatus: row.last_status,
    lastError: row.last_error,
    log: log.map((a) => ({
      attempt: a.attempt,
      statusCode: a.status_code,
      durationMs: a.duration_ms,
      responseExcerpt: a.response_excerpt,
      error: a.error,
      nextAttemptAt: a.next_attempt_at,
      createdAt: a.created_at,
    })),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** An endpoint as stored: the API's object and its sealed signing secret (what a rotation keeps as the previous one). */
export interface StoredEndpoint {
  endpoint: WebhookEndpoint;
  sealedSecret: string;
}

export async function findEndpoint(db: Kysely<DB>, access: Access, id: string): Promise<StoredEndpoint | undefined> {
  const row = await db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('workspace_id', '=', access.workspaceId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row && { endpoint: toEndpoint(row), sealedSecret: row.secret };
}

export function listEndpoints(db: Kysely<DB>, access: Access, page: { limit?: number; nextToken?: string }, tokens: PageTokens) {
  const q = db.selectFrom('webhook_endpoints').selectAll().where('workspace_id', '=', access.workspaceId);
  return fetchPage(q, 'webhook_endpoints', page, tokens, pageScope(access, 'webhook-endpoints'), toEndpoint);
}

/** A page of deliveries, newest first, each with its attempts. */
export async function listDeliveries(
  db: Kysely<DB>,
  access: Access,
  query: DeliveryListQuery,
  tokens: PageTokens,
): Promise<Page<WebhookDelivery>> {
  let q = db.selectFrom('webhook_deliveries').selectAll().where('workspace_id', '=', access.workspaceId);
  if (query.endpointId !== undefined) q = q.where('endpoint_id', '=', query.endpointId);
  if (query.status !== undefined) q = q.where('status', '=', query.status);
  const scope = pageScope(access, 'webhook-deliveries', { endpointId: query.endpointId, status: query.status });
  const page = await fetchPage(q, 'webhook_deliveries', query, tokens, scope, (row) => row);
  const ids = page.data.map((d) => d.id);
  const attempts =
    ids.length === 0
      ? []
      : await db.selectFrom('webhook_attempts').selectAll().where('delivery_id', 'in', ids).orderBy('attempt').execute();
  const byDelivery = new Map<string, WebhookAttemptsTable[]>();
  for (const attempt of attempts) byDelivery.set(attempt.delivery_id, [...(byDelivery.get(attempt.delivery_id) ?? []), attempt]);
  return { ...page, data: page.data.map((row) => toDelivery(row, byDelivery.get(row.id) ?? [])) };
}

/** Which deliveries a replay puts back in the queue: one by id, or every one that failed at or after a time. */
type Replay = { id: string } | { failedSince: string };

/** How many deliveries of this access's workspace a replay would put back (read in the replay's transaction). */
export async function countReplayable(db: Kysely<DB>, access: Access, which: Replay): Promise<number> {
  let q = db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('workspace_id', '=', access.workspaceId);
  q = 'id' in which ? q.where('id', '=', which.id) : q.where('status', '=', 'failed').where('updated_at', '>=', which.failedSince);
  return Number((await q.executeTakeFirst())?.n ?? 0);
}

/** Queues putting deliveries back in the queue, due now, their schedule restarted (the webhook-id stays). */
export function requeueDeliveries(work: UnitOfWork, access: Access, which: Replay, now: number): void {
  let q = work.db
    .updateTable('webhook_deliveries')
    .set({ status: 'pending', attempts: 0, next_attempt_at: isoAt(now), claimed_until: null, updated_at: isoAt(now) })
    .where('workspace_id', '=', access.workspaceId);
  q = 'id' in which ? q.where('id', '=', which.id) : q.where('status', '=', 'failed').where('updated_at', '>=', which.failedSince);
  work.write(q);
}

/** A new endpoint of this access's workspace (its secret sealed by the caller), enabled; the endpoint as served. */
export function insertEndpoint(
  work: UnitOfWork,
  access: Access,
  input: { id: string; url: string; eventTypes: readonly string[]; description: string; sealedSecret: string; at: string },
): WebhookEndpoint {
  const row: WebhookEndpointsTable = {
    id: input.id,
    workspace_id: access.workspaceId,
    url: input.url,
    event_types: input.eventTypes.join(','),
    description: input.description,
    enabled: 1,
    secret: input.sealedSecret,
    previous_secret: null,
    previous_secret_until: null,
    failing_since: null,
    disabled_reason: null,
    caught_up: 0,
    created_at: input.at,
    updated_at: input.at,
  };
  work.write(work.db.insertInto('webhook_endpoints').values(row));
  return toEndpoint(row);
}

/** Queues the deletion of an endpoint of this access's workspace. */
export function deleteEndpoint(work: UnitOfWork, access: Access, id: string): void {
  work.write(work.db.deleteFrom('webhook_endpoints').where('workspace_id', '=', access.workspaceId).where('id', '=', id));
}

/** What an operator changes on an endpoint: enabled (clearing why it was disabled and its failure streak) or not; its secret. */
export type EndpointChange =
  | { enabled: true }
  | { enabled: false; reason: string }
  /** a new sealed secret; the current one keeps signing beside it until `previousSecretUntil` */
  | { secret: string; previousSecretUntil: string };

/** Queues a change of an endpoint of this access's workspace; the endpoint after it. */
export function changeEndpoint(
  work: UnitOfWork,
  access: Access,
  before: StoredEndpoint,
  change: EndpointChange,
  at: string,
): WebhookEndpoint {
  const set: Partial<WebhookEndpointsTable> =
    'secret' in change
      ? { secret: change.secret, previous_secret: before.sealedSecret, previous_secret_until: change.previousSecretUntil }
      : change.enabled
        ? { enabled: 1, disabled_reason: null, failing_since: null }
        : { enabled: 0, disabled_reason: change.reason };
  work.write(
    work.db
      .updateTable('webhook_endpoints')
      .set({ ...set, updated_at: at })
      .where('workspace_id', '=', access.workspaceId)
      .where('id', '=', before.endpoint.id),
  );
  const after = { ...before.endpoint, updatedAt: at };
  if ('secret' in change) return after;
  return change.enabled
    ? { ...after, enabled: true, disabledReason: null, failingSince: null }
    : { ...after, enabled: false, disabledReason: change.reason };
}

/** The endpoints created before `createdBefore` that have not been caught up (endpoint-workspaces.ts). */
export function endpointsToCatchUp(db: Kysely<DB>, createdBefore: string) {
  return db
    .selectFrom('webhook_endpoints')
    .select(['id', 'workspace_id', 'event_types', 'enabled', 'created_at'])
    .where('caught_up', '=', 0)
    .where('created_at', '<=', createdBefore)
    .execute();
}

/** Marks an endpoint caught up; false when another process did first. */
export async function claimCatchUp(trx: Kysely<DB>, id: string): Promise<boolean> {
  const result = await trx
    .updateTable('webhook_endpoints')
    .set({ caught_up: 1 })
    .where('id', '=', id)
    .where('caught_up', '=', 0)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Every workspace with at least one endpoint (enabled or not). */
export async function workspacesWithEndpoints(db: Kysely<DB>): Promise<string[]> {
  const rows = await db.selectFrom('webhook_endpoints').select('workspace_id').distinct().execute();
  return rows.map((row) => row.workspace_id);
}

export function enabledEndpointsOf(trx: Kysely<DB>, workspaceIds: readonly string[]) {
  return trx
    .selectFrom('webhook_endpoints')
    .select(['id', 'workspace_id', 'event_types', 'created_at'])
    .where('workspace_id', 'in', workspaceIds)
    .where('enabled', '=', 1)
    .execute();
}

/** New deliveries, 50 rows a statement; one that exists (same endpoint and event: a dispatch repeated) is skipped. */
export async function insertDeliveries(trx: Kysely<DB>, deliveries: readonly WebhookDeliveriesTable[]): Promise<void> {
  for (let i = 0; i < deliveries.length; i += 50) {
    await trx
      .insertInto('webhook_deliveries')
      .values(deliveries.slice(i, i + 50))
      .onConflict((oc) => oc.columns(['endpoint_id', 'event_id']).doNothing())
      .execute();
  }
}

/** The deliveries due and not claimed, claimed until `leaseUntil`: one transaction, so no two processes take one. */
export function claimDueDeliveries(db: Kysely<DB>, dialect: DialectName, now: number, leaseUntil: number, limit: number) {
  return db.transaction().execute(async (trx) => {
    const query = trx
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('status', '=', 'pending')
      .where('next_attempt_at', '<=', isoAt(now))
      .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', isoAt(now))]))
      .orderBy('next_attempt_at')
      .limit(limit);
    const due = await skipLocked(query, dialect).execute();
    if (due.length === 0) return [];
    await trx
      .updateTable('webhook_deliveries')
      .set({ claimed_until: isoAt(leaseUntil) })
      .where(
        'id',
        'in',
        due.map((d) => d.id),
      )
      .execute();
    return due;
  });
}

export function endpointRow(db: Kysely<DB>, id: string) {
  return db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Ends a delivery without an attempt (its endpoint was disabled or deleted meanwhile). */
export async function failDelivery(db: Kysely<DB>, id: string, error: string, at: number): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set({ status: 'failed', last_error: error, claimed_until: null, updated_at: isoAt(at) })
    .where('id', '=', id)
    .execute();
}

/** An attempt and the delivery's new state, in the attempt's unit of work. */
export function recordAttempt(
  work: UnitOfWork,
  attempt: WebhookAttemptsTable,
  delivery: Pick<WebhookDeliveriesTable, 'status' | 'attempts' | 'last_status' | 'last_error' | 'updated_at'> & {
    next_attempt_at?: string;
  },
): void {
  work.write(work.db.insertInto('webhook_attempts').values(attempt));
  work.write(
    work.db
      .updateTable('webhook_deliveries')
      .set({ ...delivery, claimed_until: null })
      .where('id', '=', attempt.delivery_id),
  );
}

export function changeEndpointInWork(work: UnitOfWork, id: string, changes: Partial<WebhookEndpointsTable>): void {
  work.write(work.db.updateTable('webhook_endpoints').set(changes).where('id', '=', id));
}
