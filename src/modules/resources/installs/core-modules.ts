import { uuidV5 } from '../../../lib/uuid-v5.js';
import type { NewInstall } from './installs.repository.js';

/** The core modules every workspace has installed (contract §3), in their sidebar order. */
const CORE_MODULES = ['messages', 'files', 'forms', 'contracts', 'billing', 'helpdesk', 'tasks'] as const;

/**
 * The namespace of the core modules' application ids: a core module is one application, the same in
 * every workspace, so its `appId` is the UUID v5 of its name here (its install id is per workspace:
 * the UUID v5 of its name in the workspace id's namespace). Migration 2026-11-23-02 holds a copy.
 */
const CORE_APPS_NAMESPACE = '5c7e9a52-7d1b-4c55-9a43-6f1c0d2b8e10';

/** Sidebar position as text that orders like the number (the list's keyset is text). */
export const sortKeyOf = (sort: number) => String(sort).padStart(10, '0');

/** A new workspace's core installs. */
export function coreInstalls(workspaceId: string, at: string): NewInstall[] {
  return CORE_MODULES.map((module, sort) => ({
    id: uuidV5(module, workspaceId),
    type: 'core',
    status: 'published',
    display_name: module[0].toUpperCase() + module.slice(1),
    icon: module,
    app_id: uuidV5(module, CORE_APPS_NAMESPACE),
    path: module,
    sort,
    sort_key: sortKeyOf(sort),
    created_at: at,
    updated_at: at,
  }));
}
