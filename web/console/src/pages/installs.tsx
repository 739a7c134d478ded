import { useState } from 'preact/hooks';
import { admin, path, v1, ok, v1Api } from '../api.js';
import { Link } from '../router.js';
import type { Install } from '../types.js';
import {
  Badge,
  CreatePanel,
  DataTable,
  ErrorMessage,
  Field,
  ListState,
  PageHeading,
  Pager,
  RowButton,
  Status,
  latest,
  useAction,
  usePaged,
} from '../ui.js';
import { useWorkspaceName } from '../workspace-layout.js';

const TYPES = ['custom', 'marketplace', 'embed', 'link', 'manual'] as const;

export function InstallsPage({ workspaceId }: { workspaceId: string }) {
  const _api = v1(workspaceId);
  const list = usePaged(
    (nextToken) => ok(v1Api(workspaceId).GET('/v1/installs', { params: { query: { limit: 50, nextToken } } })),
    [workspaceId],
  );
  const [type, setType] = useState<(typeof TYPES)[number]>('custom');
  const create = useAction();
  const publish = useAction();

  const publishInstall = (install: Install) =>
    void publish.run(async () => {
      await admin.post(path`/workspaces/${workspaceId}/installs/${install.id}/publish`);
      list.reload();
      return `${install.displayName} published: clients see it from now on.`;
    });

  const createInstall = async (data: FormData) => {
    const name = String(data.get('name')).trim();
    const appId = String(data.get('appId') ?? '').trim();
    const draft = data.get('draft') === 'on';
    const url = String(data.get('url') ?? '').trim();
    await admin.post(path`/workspaces/${workspaceId}/installs`, {
      type,
      name,
      ...(appId ? { appId } : {}),
      ...(url ? { url } : {}),
      ...(type === 'custom' && draft ? { draft: true } : {}),
    });
    setType('custom');
    list.reload();
    return `${name} installed${draft ? ' as a draft' : ''}.`;
  };

  const base = `/workspaces/${encodeURIComponent(workspaceId)}/installs`;
  const rows = list.data?.data ?? [];
  const needsApp = type === 'custom' || type === 'marketplace';
  return (
    <>
      <PageHeading title="Installs" context={useWorkspaceName()} />
      <Status>{latest(create, publish)}</Status>
      <ErrorMessage error={publish.error} />
      <ListState list={list} empty="No install." what="installs" />
      {rows.length > 0 ? (
        <DataTable caption="Installs, in sidebar order" columns={['Position', 'Name', 'Type', 'Status']} actions>
          {rows.map((install) => (
            <tr key={install.id}>
              <td data-label="Position">{install.sort}</td>
              <td data-label="Name">
                {install.displayName}
                <div class="mono small">{install.id}</div>
              </td>
              <td data-label="Type">{install.type}</td>
              <td data-label="Status">
                <Badge value={install.status} />
              </td>
              <td class="actions">
                <Link
                  href={`${base}/${encodeURIComponent(install.id)}/notification-settings`}
                  aria-label={`Notification settings of ${install.displayName}`}
                >
                  Notification settings
                </Link>
                {install.status === 'draft' ? (
                  <RowButton onClick={() => publishInstall(install)} busy={publish.busy} label={`Publish ${install.displayName}`}>
                    Publish
                  </RowButton>
                ) : null}
              </td>
            </tr>
          ))}
        </DataTable>
      ) : null}
      <Pager list={list} label="Installs" />

      <CreatePanel id="create-install" title="Install an app" submitLabel="Install" action={create} create={createInstall}>
        <Field label="Type">
          {(props) => (
            <select {...props} name="type" onChange={(e) => setType(e.currentTarget.value as (typeof TYPES)[number])}>
              {TYPES.map((t) => (
                <option key={t} value={t} selected={t === type}>
                  {t}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Name">{(props) => <input {...props} name="name" required maxLength={200} />}</Field>
        {needsApp ? <Field label="App id">{(props) => <input {...props} name="appId" required class="mono" />}</Field> : null}
        {needsApp || type === 'link' ? (
          <Field
            label="URL"
            hint={needsApp ? "The app's page, framed in the portal with the person's session token (?token=)." : 'Where the link leads.'}
          >
            {(props) => <input {...props} name="url" type="url" required={type === 'link'} maxLength={2048} class="mono" />}
          </Field>
        ) : null}
        {type === 'custom' ? (
          <label class="choice">
            <input type="checkbox" name="draft" />
            Draft (hidden from clients until published)
          </label>
        ) : null}
      </CreatePanel>
    </>
  );
}
