import type { Database } from '../../../db/database.js';
import { listAs } from '../../../db/paging.js';
import { type UnitOfWork, unitOfWork } from '../../../db/unit-of-work.js';
import type { Caller } from '../../../lib/caller.js';
import { isoAt } from '../../../lib/clock.js';
import { errors, orNotFound } from '../../../lib/errors.js';
import { newRowId } from '../../../lib/row-id.js';
import type { SecretBox } from '../../../lib/secret-box.js';
import { recordAudit } from '../../../audit/index.js';
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
  return unitOfWork(database, async (work) => {
    const endpoint = repo.insertEndpoint(work, caller.access, {
      id: newRowId(),
      url: input.url,
      eventTypes,
      description: input.description ?? '',
      sealedSecret: settings.secrets.seal(secret),
      at: isoAt(caller.actor.at),
    });
    // The webhook worker flags this workspace's entries from now on (and catches the endpoint up).
    work.onCommit(() => endpointCreated(database, caller.access.workspaceId));
    return { ...endpoint, secret };
  });
}

export const listEndpoints = listAs(repo.listEndpoints);

/** An endpoint of the caller's workspace, read in the change's unit; a 404 otherwise. */
async function endpointOf(work: UnitOfWork, caller: Caller, id: string) {
  return orNotFound(await repo.findEndpoint(work.db, caller.access, id), 'Webhook endpoint');
}

export async function deleteEndpoint(database: Database, caller: Caller, id: string) {
  return unitOfWork(
    database,
    async (work) => {
      const { endpoint } = await endpointOf(work, caller, id);
      repo.deleteEndpoint(work, caller.access, endpoint.id);
      return { id: endpoint.id, object: 'webhookEndpoint', deleted: true as const };
    },
    { transaction: true },
  );
}

/** Enables (clearing the reason it was disabled and its failure streak) or disables an endpoint. */
export async function setEndpointEnabled(database: Database, caller: Caller, id: string, enabled: boolean): Promise<WebhookEndpoint> {
  return unitOfWork(
    database,
    async (work) => {
      const before = await endpointOf(work, caller, id);
      const change: repo.EndpointChange = enabled ? { enabled: true } : { enabled: false, reason: 'disabled by an operator' };
      return repo.changeEndpoint(work, caller.access, before, change, isoAt(caller.actor.at));
    },
    { transaction: true },
  );
}

/** A new signing secret; the previous one keeps signing beside it for 24 hours, so receivers can switch over. */
export async function rotateSecret(database: Database, caller: Caller, id: string, settings: WebhookSettings) {
  return unitOfWork(
    database,
    async (work) => {
      const before = await endpointOf(work, caller, id);
      const secret = newWebhookSecret();
      const until = isoAt(caller.actor.at + ROTATION_OVERLAP_MS);
      repo.changeEndpoint(
        work,
        caller.access,
        before,
        { secret: settings.secrets.seal(secret), previousSecretUntil: until },
        isoAt(caller.actor.at),
      );
      return { id: before.endpoint.id, secret, previousSecretValidUntil: until };
    },
    { transaction: true },
  );
}

export const listDeliveries = listAs(repo.listDeliveries);

/** Puts deliveries back in the queue in one unit of work; how many. */
async function replay(database: Database, caller: Caller, which: { id: string } | { failedSince: string }, wake?: () => void) {
  const replayed = await unitOfWork(
    database,
    async (work) => {
      const count = await repo.countReplayable(work.db, caller.access, which);
      if (count > 0) repo.requeueDeliveries(work, caller.access, which, caller.actor.at);
      if (count > 0 && wake) work.onCommit(wake);
      return count;
    },
    { transaction: true },
  );
  return { replayed };
}

/** Sends one delivery again (its webhook-id unchanged), from the first attempt of the schedule. */
export async function replayDelivery(database: Database, caller: Caller, id: string, wake?: () => void) {
  const replayed = await replay(database, caller, { id }, wake);
  if (replayed.replayed === 0) throw errors.notFound('Webhook delivery');
  return replayed;
}

/** Sends again every delivery that failed at or after `failedSince`. */
export function replayFailedSince(database: Database, caller: Caller, failedSince: string, wake?: () => void) {
  return replay(database, caller, { failedSince: isoAt(Date.parse(failedSince)) }, wake);
}

/**
 * `POST /v1/webhooks/{event}` (the SDK's sendWebhook): records appEventEmitted for the calling app;
 * its webhook goes to the endpoints subscribed to app.eventEmitted, with `{event, appId, payload}` as data.
 */
export async function emitAppEvent(database: Database, caller: Caller, event: string, payload: unknown) {
  const principal = caller.principal;
  const appId = principal.kind === 'system' || principal.kind === 'workspaceKey' ? null : principal.appId;
  if (appId === null) throw errors.forbidden('Only an app (its key, bearer token or session) emits app events.');
  const id = newRowId();
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
