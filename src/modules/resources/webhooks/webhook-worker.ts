import type { FastifyBaseLogger } from 'fastify';
import {
  type AuditEventType,
  type PendingEntry,
  claimPendingEntries,
  entriesOfWorkspaceBetween,
  flagForWebhooksWhen,
  markDispatched,
  markWorkspacesDispatched,
  onAuditCommitted,
  recordAudit,
  webhookEventName,
} from '../../../audit/index.js';
import type { Database } from '../../../db/database.js';
import { busyRetry } from '../../../db/errors.js';
import { parseObject } from '../../../db/rows.js';
import type { WebhookDeliveriesTable } from '../../../db/schema.js';
import { unitOfWork } from '../../../db/unit-of-work.js';
import { LoopWorker } from '../../../lib/background-loop.js';
import { systemCaller } from '../../../lib/caller.js';
import { type Clock, isoAt } from '../../../lib/clock.js';
import { newRowId } from '../../../lib/row-id.js';
import type { SecretBox } from '../../../lib/secret-box.js';
import { type EndpointWorkspaces, endpointWorkspacesOf } from './endpoint-workspaces.js';
import { type LookupAll, postWebhook, signWebhook } from './webhook-http.js';
import {
  ALL_EVENTS,
  changeEndpointInWork,
  claimCatchUp,
  claimDueDeliveries,
  enabledEndpointsOf,
  endpointRow,
  endpointsToCatchUp,
  failDelivery,
  insertDeliveries,
  recordAttempt,
  webhookIdOf,
} from './webhooks.repository.js';

/** Attempt n + 1 waits RETRY_DELAYS_MS[n] after attempt n failed (the first is immediate); after the tenth, the delivery failed. */
const RETRY_DELAYS_MS: readonly number[] = [
  0,
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  14 * 3_600_000,
  20 * 3_600_000,
  24 * 3_600_000,
];
/** An endpoint whose deliveries have all failed this long is disabled. */
const FAILING_LIMIT_MS = 5 * 24 * 3_600_000;
const ENTRIES_PER_DISPATCH = 100;
/** Entries of workspaces without an endpoint marked dispatched, unread, beside a full claim. */
const BACKLOG_PER_DISPATCH = 2_000;
const DELIVERIES_PER_STEP = 20;
const MAX_STEPS_PER_ROUND = 20;
/**
 * Rounds start at least this far apart: a delivery still leaves within about this long of its commit,
 * and under a stream of writes a round takes a batch instead of running once per commit (a round per
 * commit cost POST /v1/invoices 12% of its CPU on SQLite, whose one connection the rounds share).
 */
const MIN_ROUND_GAP_MS = 20;
/** How often the workspaces with endpoints are reloaded, and new endpoints looked for to catch up. */
const RELOAD_MS = 1000;
/**
 * A new endpoint is caught up this long after its creation, with the entries of its workspace written
 * from its creation on over CATCH_UP_WINDOW_MS (a reload's period and a margin for clocks): those another
 * process may have written unflagged, not knowing of the endpoint yet (endpoint-workspaces.ts). The delay
 * lets the requests of that window commit first; at most CATCH_UP_ENTRIES entries.
 */
const CATCH_UP_AFTER_MS = 5_000;
const CATCH_UP_WINDOW_MS = 2 * RELOAD_MS + 1000;
const CATCH_UP_ENTRIES = 10_000;
/** How long a delivery attempt waits for the endpoint's answer (`timeoutMs` overrides it). */
const DELIVERY_TIMEOUT_MS = 15_000;
/**
 * A claim lasts twice the attempt's timeout: it outlives the attempt holding it, and lapses soon after its process
 * died (30 s by default), when another process sends the delivery again.
 */
const LEASE_PER_TIMEOUT = 2;

export interface WebhookWorkerOptions {
  /** Refuse nothing by address (tests deliver to 127.0.0.1): PORTAL_WEBHOOKS_ALLOW_PRIVATE. */
  allowPrivate: boolean;
  pollMs?: number;
  timeoutMs?: number;
  retryDelaysMs?: readonly number[];
  lookup?: LookupAll;
}

/** The body receivers of the hosted API parse: `{eventType, created, object, data, previousAttributes?}`. */
function payloadOf(entry: PendingEntry): string {
  return JSON.stringify({
    eventType: webhookEventName(entry.event_type as AuditEventType),
    created: entry.created_at,
    object: entry.object_type ?? 'auditLogEntry',
    data: entry.data === null ? { id: entry.id, context: parseObject(entry.context) } : JSON.parse(entry.data),
    ...(entry.previous_attributes === null ? {} : { previousAttributes: JSON.parse(entry.previous_attributes) }),
  });
}

const subscribes = (eventTypes: string, name: string) => eventTypes === ALL_EVENTS || eventTypes.split(',').includes(name);

interface EndpointSubscription {
  id: string;
  workspace_id: string;
  event_types: string;
  created_at: string;
}

/** One delivery per entry and endpoint that subscribes to it: an endpoint gets the events of its workspace from its creation on. */
function deliveriesFor(
  entries: readonly PendingEntry[],
  endpoints: readonly EndpointSubscription[],
  now: string,
): WebhookDeliveriesTable[] {
  const deliveries: WebhookDeliveriesTable[] = [];
  for (const entry of entries) {
    const name = webhookEventName(entry.event_type as AuditEventType);
    for (const endpoint of endpoints) {
      if (endpoint.workspace_id !== entry.workspace_id || endpoint.created_at > entry.created_at) continue;
      if (!subscribes(endpoint.event_types, name)) continue;
      deliveries.push({
        id: newRowId(),
        workspace_id: entry.workspace_id,
        endpoint_id: endpoint.id,
        event_id: entry.id,
        event_type: name,
        payload: payloadOf(entry),
        status: 'pending',
        attempts: 0,
        next_attempt_at: now,
        claimed_until: null,
        last_status: null,
        last_error: null,
        created_at: now,
        updated_at: now,
      });
    }
  }
  return deliveries;
}

/**
 * One dispatch step: claims the oldest pending entries, fans them out to the endpoints subscribed to them, marks them
 * dispatched, in one transaction; how many entries it took (a step of the worker's rounds, and of the tests').
 */
export function dispatchPending(database: Database, now: string): Promise<number> {
  return database.db.transaction().execute(async (trx) => {
    const entries = await claimPendingEntries(trx, database.dialect, ENTRIES_PER_DISPATCH);
    if (entries.length === 0) return 0;
    const workspaceIds = [...new Set(entries.map((e) => e.workspace_id))];
    const endpoints = await enabledEndpointsOf(trx, workspaceIds);
    await insertDeliveries(trx, deliveriesFor(entries, endpoints, now));
    await markDispatched(
      trx,
      entries.map((e) => e.id),
    );
    // A backlog with nowhere to go (100,000 clients imported by the `portal` command) is cleared in chunks, unread,
    // rather than read 100 entries a step for minutes beside the requests. An endpoint created meanwhile gets
    // these entries from its catch-up, as it would have from this claim.
    const withoutEndpoints = workspaceIds.filter((id) => !endpoints.some((endpoint) => endpoint.workspace_id === id));
    if (entries.length === ENTRIES_PER_DISPATCH && withoutEndpoints.length > 0)
      await markWorkspacesDispatched(trx, withoutEndpoints, BACKLOG_PER_DISPATCH);
    return entries.length;
  });
}

/**
 * Delivers webhooks, off the request path. The audit log is the outbox: every entry is written with
 * `webhook_pending` in the change's own transaction; the dispatcher turns each into one delivery per
 * subscribed endpoint (a unique key per endpoint and event, so a dispatch repeated after a crash adds
 * nothing) and clears the flag, in one transaction. Deliveries are claimed (PostgreSQL: `FOR UPDATE SKIP
 * LOCKED`, so several processes never take the same one), sent, and recorded attempt by attempt.
 */
export class WebhookWorker extends LoopWorker {
  private readonly retryDelaysMs: readonly number[];
  private readonly stopListening: () => void;
  private readonly stopFlagging: () => void;
  private readonly endpointWorkspaces: EndpointWorkspaces;
  private reloadedAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly log: FastifyBaseLogger,
    private readonly secrets: SecretBox,
    private readonly options: WebhookWorkerOptions,
  ) {
    super({
      pollMs: options.pollMs ?? 1000,
      maxSteps: MAX_STEPS_PER_ROUND,
      minGapMs: MIN_ROUND_GAP_MS,
      onError: (error) => log.error({ err: error }, 'webhooks: round failed'),
      busy: busyRetry(log, 'webhooks'),
    });
    this.retryDelaysMs = options.retryDelaysMs ?? RETRY_DELAYS_MS;
    // A commit of this process that wrote audit entries starts a round at once; the poll finds the rest.
    this.stopListening = onAuditCommitted(database, () => this.wake());
    // Entries are flagged only in the workspaces with endpoints (loaded by the first round).
    const endpointWorkspaces = endpointWorkspacesOf(database);
    this.endpointWorkspaces = endpointWorkspaces;
    this.stopFlagging = flagForWebhooksWhen(database, (workspaceId) => endpointWorkspaces.has(workspaceId));
  }

  /** Dispatches, then delivers what is due; true when either took a full batch (more may be waiting). */
  protected async step(): Promise<boolean> {
    if (performance.now() - this.reloadedAt >= RELOAD_MS) {
      this.reloadedAt = performance.now();
      await this.endpointWorkspaces.reload(this.database);
      await this.catchUp();
    }
    const dispatched = await dispatchPending(this.database, isoAt(this.clock.now()));
    const delivered = await this.deliverDue();
    return dispatched >= ENTRIES_PER_DISPATCH || delivered >= DELIVERIES_PER_STEP;
  }

  /**
   * Catches up each endpoint created more than CATCH_UP_AFTER_MS ago that has not been: the entries of
   * its workspace from its creation on over CATCH_UP_WINDOW_MS, fanned out to it (a delivery that exists
   * already is skipped); each endpoint by one process only (the claim), once.
   */
  async catchUp(): Promise<void> {
    const now = this.clock.now();
    for (const endpoint of await endpointsToCatchUp(this.database.db, isoAt(now - CATCH_UP_AFTER_MS))) {
      await this.database.db.transaction().execute(async (trx) => {
        if (!(await claimCatchUp(trx, endpoint.id)) || endpoint.enabled !== 1) return;
        const until = isoAt(Date.parse(endpoint.created_at) + CATCH_UP_WINDOW_MS);
        const entries = await entriesOfWorkspaceBetween(trx, endpoint.workspace_id, endpoint.created_at, until, CATCH_UP_ENTRIES);
        await insertDeliveries(trx, deliveriesFor(entries, [endpoint], isoAt(now)));
      });
    }
  }

  /** Claims the deliveries due and sends them; how many it claimed. */
  async deliverDue(): Promise<number> {
    const now = this.clock.now();
    const leaseUntil = now + LEASE_PER_TIMEOUT * (this.options.timeoutMs ?? DELIVERY_TIMEOUT_MS);
    const claimed = await claimDueDeliveries(this.database.db, this.database.dialect, now, leaseUntil, DELIVERIES_PER_STEP);
    await Promise.all(claimed.map((delivery) => this.send(delivery)));
    return claimed.length;
  }

  private async send(delivery: WebhookDeliveriesTable): Promise<void> {
    const endpoint = await endpointRow(this.database.db, delivery.endpoint_id);
    const now = this.clock.now();
    if (endpoint?.enabled !== 1) {
      await failDelivery(this.database.db, delivery.id, 'the endpoint is disabled', now);
      return;
    }
    const secrets = [this.secrets.open(endpoint.secret)];
    if (endpoint.previous_secret && endpoint.previous_secret_until && endpoint.previous_secret_until > isoAt(now)) {
      secrets.push(this.secrets.open(endpoint.previous_secret));
    }
    // The signed timestamp is the wall clock's: receivers check it against theirs.
    const headers = signWebhook({
      id: webhookIdOf(delivery.event_id),
      timestamp: Math.floor(Date.now() / 1000),
      body: delivery.payload,
      secrets,
    });
    const response = await postWebhook(endpoint.url, headers, delivery.payload, {
      timeoutMs: this.options.timeoutMs ?? DELIVERY_TIMEOUT_MS,
      allowPrivate: this.options.allowPrivate,
      lookup: this.options.lookup,
    });
    const at = this.clock.now();
    const attempt = delivery.attempts + 1;
    const ok = response.status !== null && response.status >= 200 && response.status < 300;
    const delay = this.retryDelaysMs[attempt];
    const retryAt = ok || response.status === 410 || delay === undefined ? null : at + delay;
    await unitOfWork(this.database, async (work) => {
      const attemptRow = {
        id: newRowId(),
        delivery_id: delivery.id,
        attempt,
        status_code: response.status,
        duration_ms: response.durationMs,
        response_excerpt: response.excerpt,
        error: response.error,
        next_attempt_at: retryAt === null ? null : isoAt(retryAt),
        created_at: isoAt(at),
      };
      recordAttempt(work, attemptRow, {
        status: ok ? 'succeeded' : retryAt === null ? 'failed' : 'pending',
        attempts: attempt,
        ...(retryAt === null ? {} : { next_attempt_at: isoAt(retryAt) }),
        last_status: response.status,
        last_error: response.error,
        updated_at: isoAt(at),
      });
      const changeEndpoint = (changes: Parameters<typeof changeEndpointInWork>[2]) => changeEndpointInWork(work, endpoint.id, changes);
      if (ok) {
        if (endpoint.failing_since !== null) changeEndpoint({ failing_since: null, updated_at: isoAt(at) });
        return;
      }
      const failingSince = endpoint.failing_since ?? isoAt(at);
      const gone = response.status === 410;
      const exhausted = at - Date.parse(failingSince) >= FAILING_LIMIT_MS;
      if (!gone && !exhausted) {
        if (endpoint.failing_since === null) changeEndpoint({ failing_since: failingSince, updated_at: isoAt(at) });
        return;
      }
      const reason = gone ? 'the endpoint answered 410 Gone' : 'every delivery failed for 5 days';
      changeEndpoint({ enabled: 0, disabled_reason: reason, failing_since: failingSince, updated_at: isoAt(at) });
      const { actor } = systemCaller(endpoint.workspace_id, at);
      recordAudit(work, actor, {
        eventType: 'customEvent',
        description: `Webhook endpoint ${endpoint.url} disabled: ${reason}`,
        context: { customEventType: 'webhookEndpointDisabled', endpointId: endpoint.id, reason },
        bySystem: true,
      });
    });
    if (!ok)
      this.log.warn({ deliveryId: delivery.id, attempt, status: response.status, error: response.error }, 'webhooks: attempt failed');
  }

  override close(): Promise<void> {
    this.stopListening();
    this.stopFlagging();
    return super.close();
  }
}
