import { randomUUID } from 'node:crypto';
import type { Database } from '../../db/database.js';
import { listAs } from '../../db/paging.js';
import { unitOfWork } from '../../db/unit-of-work.js';
import type { Caller } from '../../lib/caller.js';
import { isoAt } from '../../lib/clock.js';
import { errors, orNotFound } from '../../lib/errors.js';
import type { SecretBox } from '../../lib/secret-box.js';
import { recordAudit } from '../../audit/index.js';
import { type LookupAll, WebhookAddressError, assertPublicUrl, newWebhookSecret } from './webhook-http.js';
import { endpointCreated } from './endpoint-workspaces.js';
import * as repo from './webhooks.repository.js';
import type { WebhookEndpoint, WebhookEndpointCreate } from './webhooks.schemas.js';

/** What managing endpoints needs beyond the database. */
export interface WebhookSettings {
  secrets: SecretBox;
  allowPrivate: boolean;
  lookup?: LookupAll;
}

/** During a rotation the previous secret keeps signing (beside the new one) this long. */
const ROTATION_OVERLAP_MS = 24 * 3_600_000;

export async function createEndpoint(
  database: Database,
  caller: Caller,
  input: WebhookEndpointCreate,
  settings: WebhookSettings,
): Promise<WebhookEndpoint & { secret: string }> {
  try {
    await assertPublicUrl(input.url, { allowPrivate: settings.allowPrivate, lookup: settings.lookup });
  } catch (error) {
    if (error instanceof WebhookAddressError) throw errors.invalidField('body.url', error.message);
    throw error;
  }
  const eventTypes = !input.eventTypes || input.eventTypes.includes(repo.ALL_EVENTS) ? [repo.ALL_EVENTS] : input.eventTypes;
  const secret = newWebhookSecret();
  const at = isoAt(caller.actor.at);
  const row = {
    id: randomUUID(),
    workspace_id: caller.access.workspaceId,
    url: input.url,
    event_types: eventTypes.join(','),
    description: input.description ?? '',
    enabled: 1,
    secret: settings.secrets.seal(secret),
    previous_secret: null,
    previous_secret_until: null,
    failing_since: null,
    disabled_reason: null,
    caught_up: 0,
    created_at: at,
    updated_at: at,
  };
  await repo.insertEndpoint(database.db, row);
  endpointCreated(database, row.workspace_id);
  return { ...repo.toEndpoint(row), secret };
}

export const listEndpoints = listAs(repo.listEndpoints);

async function endpointOf(database: Database, caller: Caller, id: string) {
  return orNotFound(await repo.findEndpoint(database.db, caller.access, id), 'Webhook endpoint');
}

export async function deleteEndpoint(database: Database, caller: Caller, id: string) {
  const endpoint = await endpointOf(database, caller, id);
  await repo.deleteEndpoint(database.db, endpoint.id);
  return { id: endpoint.id, object: 'webhookEndpoint', deleted: true as const };
}

/** Enables (clearing the reason it was disabled and its failure streak) or disables an endpoint. */
export async function setEndpointEnabled(database: Database, caller: Caller, id: string, enabled: boolean): Promise<WebhookEndpoint> {
  const endpoint = await endpointOf(database, caller, id);
  const changes = enabled
    ? { enabled: 1, disabled_reason: null, failing_since: null }
    : { enabled: 0, disabled_reason: 'disabled by an operator' };
  const at = isoAt(caller.actor.at);
  await repo.changeEndpoint(database.db, endpoint.id, { ...changes, updated_at: at });
  return repo.toEndpoint({ ...endpoint, ...changes, updated_at: at });
}

/** A new signing secret; the previous one keeps signing beside it for 24 hours, so receivers can switch over. */
export async function rotateSecret(database: Database, caller: Caller, id: string, settings: WebhookSettings) {
  const endpoint = await endpointOf(database, caller, id);
  const secret = newWebhookSecret();
  const until = isoAt(caller.actor.at + ROTATION_OVERLAP_MS);
  await repo.changeEndpoint(database.db, endpoint.id, {
    secret: settings.secrets.seal(secret),
    previous_secret: endpoint.secret,
    previous_secret_until: until,
    updated_at: isoAt(caller.actor.at),
  });
  return { id: endpoint.id, secret, previousSecretValidUntil: until };
}

export const listDeliveries = listAs(repo.listDeliveries);

/** Sends one delivery again (its webhook-id unchanged), from the first attempt of the schedule. */
export async function replayDelivery(database: Database, caller: Caller, id: string, wake?: () => void) {
  const replayed = await repo.requeueDeliveries(database.db, caller.access, { id }, caller.actor.at);
  if (replayed === 0) throw errors.notFound('Webhook delivery');
  wake?.();
  return { replayed };
}

/** Sends again every delivery that failed at or after `failedSince`. */
export async function replayFailedSince(database: Database, caller: Caller, failedSince: string, wake?: () => void) {
  const replayed = await repo.requeueDeliveries(
    database.db,
    caller.access,
    { failedSince: isoAt(Date.parse(failedSince)) },
    caller.actor.at,
  );
  if (replayed > 0) wake?.();
  return { replayed };
}

/**
 * `POST /v1/webhooks/{event}` (the SDK's sendWebhook): records appEventEmitted for the calling app;
 * its webhook goes to the endpoints subscribed to app.eventEmitted, with `{event, appId, payload}` as data.
 */
export async function emitAppEvent(database: Database, caller: Caller, event: string, payload: unknown) {
  const principal = caller.principal;
  const appId = principal.kind === 'system' || principal.kind === 'workspaceKey' ? null : principal.appId;
  if (appId === null) throw errors.forbidden('Only an app (its key, bearer token or session) emits app events.');
  const id = randomUUID();
  const createdAt = isoAt(caller.actor.at);
  await unitOfWork(database, async (work) => {
    recordAudit(work, caller.actor, {
      eventType: 'appEventEmitted',
      description: `App event ${event} emitted`,
      context: { event, appId },
      subject: { object: 'appEvent', id, data: { id, object: 'appEvent', event, appId, payload: payload ?? null } },
    });
  });
  return { id, object: 'appEvent' as const, event, appId, createdAt };
}
