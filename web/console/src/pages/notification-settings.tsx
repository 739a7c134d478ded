import { path, v1 } from '../api.js';
import { Link } from '../router.js';
import type { Install, NotificationSettings } from '../types.js';
import { DataTable, ErrorMessage, PageHeading, useLoad } from '../ui.js';
import { useWorkspaceName } from '../workspace-layout.js';

const yesNo = (value: boolean) => (value ? 'on' : 'off');

export function NotificationSettingsPage({ workspaceId, params }: { workspaceId: string; params: Record<string, string> }) {
  const api = v1(workspaceId);
  const { installId } = params;
  const install = useLoad(() => api.get<Install>(path`/installs/${installId}`), [workspaceId, installId]);
  const settings = useLoad(
    () => api.get<NotificationSettings>(path`/installs/${installId}/notification-settings`),
    [workspaceId, installId],
  );
  const name = install.data?.displayName ?? installId;
  const s = settings.data;
  return (
    <>
      <PageHeading title={`Notification settings of ${name}`} context={useWorkspaceName()} />
      <p>
        <Link href={`/workspaces/${encodeURIComponent(workspaceId)}/installs`}>Back to the installs</Link>
      </p>
      <ErrorMessage error={install.error ?? settings.error} />
      {settings.loading && !s ? <p aria-live="polite">Loading the settings…</p> : null}
      {s?.actionLabel ? (
        <p>
          Action label: <strong>{s.actionLabel.verb}</strong> {s.actionLabel.singularNoun} / {s.actionLabel.pluralNoun}
        </p>
      ) : null}
      {s && s.notifications.length === 0 ? <p class="empty">This install's app declares no notification setting.</p> : null}
      {s && s.notifications.length > 0 ? (
        <DataTable
          caption="Declared notification settings"
          columns={['Setting', 'Id', 'Surfaces', 'Default: in product', 'Default: e-mail']}
        >
          {s.notifications.map((setting) => (
            <tr key={setting.id}>
              <td data-label="Setting">{setting.label}</td>
              <td data-label="Id" class="mono">
                {setting.id}
              </td>
              <td data-label="Surfaces">{setting.surfaces.join(', ') || '—'}</td>
              <td data-label="Default: in product">{yesNo(setting.default.product)}</td>
              <td data-label="Default: e-mail">{yesNo(setting.default.email)}</td>
            </tr>
          ))}
        </DataTable>
      ) : null}
    </>
  );
}
