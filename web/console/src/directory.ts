import { ok, v1Api } from './api.js';
import { useLoad } from './ui.js';

/** The directory's first thousand of each kind, enough to name the people and companies a list shows by id. */
const DIRECTORY_LIMIT = 1000;

/**
 * Names for the ids of a workspace's clients, companies and internal users (the pages of messages, tasks
 * and notes show who and what by name). An id not among those loaded is shown as it is.
 */
export function useDirectory(workspaceId: string) {
  const api = v1Api(workspaceId);
  const query = { params: { query: { limit: DIRECTORY_LIMIT } } };
  const clients = useLoad(() => ok(api.GET('/v1/clients', query)), [workspaceId]);
  const companies = useLoad(() => ok(api.GET('/v1/companies', query)), [workspaceId]);
  const users = useLoad(() => ok(api.GET('/v1/internal-users', query)), [workspaceId]);
  const clientNames = new Map((clients.data?.data ?? []).map((c) => [c.id, `${c.givenName} ${c.familyName}`]));
  const companyNames = new Map((companies.data?.data ?? []).map((c) => [c.id, c.isPlaceholder ? `${c.name} (placeholder)` : c.name]));
  const userNames = new Map((users.data?.data ?? []).map((u) => [u.id, `${u.givenName} ${u.familyName}`]));
  return {
    client: (id: string) => clientNames.get(id) ?? id,
    company: (id: string) => companyNames.get(id) ?? id,
    internalUser: (id: string) => userNames.get(id) ?? id,
    /** A sender, creator or assignee that may be a client or an internal user. */
    person: (id: string) => clientNames.get(id) ?? userNames.get(id) ?? id,
  };
}

export type Directory = ReturnType<typeof useDirectory>;
