import { type Page, v1 } from './api.js';
import type { Client, Company, InternalUser } from './types.js';
import { useLoad } from './ui.js';

/** The directory's first thousand of each kind, enough to name the people and companies a list shows by id. */
const DIRECTORY_LIMIT = 1000;

/**
 * Names for the ids of a workspace's clients, companies and internal users (the pages of messages, tasks
 * and notes show who and what by name). An id not among those loaded is shown as it is.
 */
export function useDirectory(workspaceId: string) {
  const api = v1(workspaceId);
  const clients = useLoad(() => api.get<Page<Client>>('/clients', { limit: DIRECTORY_LIMIT }), [workspaceId]);
  const companies = useLoad(() => api.get<Page<Company>>('/companies', { limit: DIRECTORY_LIMIT }), [workspaceId]);
  const users = useLoad(() => api.get<Page<InternalUser>>('/internal-users', { limit: DIRECTORY_LIMIT }), [workspaceId]);
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
