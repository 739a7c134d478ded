import type { Database } from '../../../db/database.js';
import { workspacesWithEndpoints } from './webhooks.repository.js';

/**
 * Which workspaces have a webhook endpoint, as this process knows it: what recordAudit asks before
 * flagging an entry for the webhook worker (src/audit: flagForWebhooksWhen), so that a workspace without
 * endpoints pays neither the flag nor any dispatch. Loaded by the webhook worker and reloaded every
 * second (an endpoint another process creates counts here within that second); an endpoint created by
 * this process counts from its commit. Until the first load, every workspace counts (nothing is missed).
 *
 * An entry written without the flag in the seconds after a new endpoint's creation (by a process that
 * did not know of it yet) is still delivered: the worker catches the endpoint up once, CATCH_UP_AFTER_MS
 * after its creation, with the entries of its workspace from its creation on over CATCH_UP_WINDOW_MS
 * (webhook-worker.ts). Deleting a workspace's last endpoint stops the flag within a second; entries
 * flagged meanwhile are dispatched to no endpoint, as before.
 */
export class EndpointWorkspaces {
  /** null until loaded: every workspace counts. */
  private known: Set<string> | null = null;

  has(workspaceId: string): boolean {
    return this.known === null || this.known.has(workspaceId);
  }

  add(workspaceId: string): void {
    this.known?.add(workspaceId);
  }

  async reload(database: Database): Promise<void> {
    this.known = new Set(await workspacesWithEndpoints(database.db));
  }
}

/** Per open database: the one its webhook worker loads (none without a worker in this process). */
const trackers = new WeakMap<Database, EndpointWorkspaces>();

export function endpointWorkspacesOf(database: Database): EndpointWorkspaces {
  let tracker = trackers.get(database);
  if (!tracker) {
    tracker = new EndpointWorkspaces();
    trackers.set(database, tracker);
  }
  return tracker;
}

/** After an endpoint's creation committed in this process: its workspace's entries are flagged from now on. */
export function endpointCreated(database: Database, workspaceId: string): void {
  trackers.get(database)?.add(workspaceId);
}
