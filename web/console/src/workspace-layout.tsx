import type { ComponentChildren } from 'preact';
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import { adminApi, ok } from './api.js';
import { Link } from './router.js';
import { useLoad } from './ui.js';

/** The sections of a workspace, in the order of its navigation: the operator's work (staff work in the portal: the overview says where). */
const SECTIONS: [string, string][] = [
  ['', 'Overview'],
  ['/keys', 'API keys'],
  ['/installs', 'Installs'],
  ['/webhooks', 'Webhooks'],
  ['/outbox', 'E-mail outbox'],
  ['/branding', 'Branding'],
  ['/qa', 'QA'],
  ['/csv', 'Import & export'],
  ['/audit-log', 'Audit log'],
];

const WorkspaceName = createContext<string>('');

/** The name of the workspace being shown ('' until known), for page titles. */
export const useWorkspaceName = () => useContext(WorkspaceName);

export function WorkspaceLayout({ workspaceId, path, children }: { workspaceId: string; path: string; children: ComponentChildren }) {
  // The admin surface has no GET of one workspace: its name comes from the list (the first thousand).
  const workspaces = useLoad(() => ok(adminApi.GET('/admin/workspaces', { params: { query: { limit: 1000 } } })), []);
  const workspace = workspaces.data?.data.find((w) => w.id === workspaceId);
  const name = workspace?.name ?? '';
  const base = `/workspaces/${encodeURIComponent(workspaceId)}`;
  return (
    <WorkspaceName.Provider value={name}>
      <div class="workspace">
        <nav class="breadcrumbs" aria-label="Breadcrumbs">
          <ol>
            <li>
              <Link href="/">Workspaces</Link>
            </li>
            <li>
              <span aria-current="location">{name || workspaceId}</span>
            </li>
          </ol>
        </nav>
        <nav class="sections" aria-label={`Workspace ${name || workspaceId}`}>
          <ul>
            {SECTIONS.map(([section, label]) => (
              <li key={section}>
                <Link
                  href={base + section}
                  current={section === '' ? path === '' || path === '/' : path === section || path.startsWith(`${section}/`)}
                >
                  {label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <main id="main">
          {workspaces.data && !workspace && !workspaces.data.nextToken ? (
            <p class="notice notice-error" role="alert">
              No workspace has the id {workspaceId}.
            </p>
          ) : null}
          {children}
        </main>
      </div>
    </WorkspaceName.Provider>
  );
}
