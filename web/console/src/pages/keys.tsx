import { useState } from 'preact/hooks';
import { admin, path, adminApi, ok } from '../api.js';
import type { ApiKey, CreatedKey } from '../types.js';
import {
  Badge,
  CreatePanel,
  DataTable,
  ErrorMessage,
  Field,
  ListState,
  PageHeading,
  RowButton,
  SecretOnce,
  Status,
  formatDate,
  latest,
  useAction,
  useLoad,
} from '../ui.js';
import { useWorkspaceName } from '../workspace-layout.js';

export function KeysPage({ workspaceId }: { workspaceId: string }) {
  const list = useLoad(
    () => ok(adminApi.GET('/admin/workspaces/{workspaceId}/keys', { params: { path: { workspaceId } } })),
    [workspaceId],
  );
  const [created, setCreated] = useState<CreatedKey | null>(null);
  const [kind, setKind] = useState<'workspace' | 'app'>('workspace');
  const create = useAction();
  const revoke = useAction();

  const createKey = async (data: FormData) => {
    const label = String(data.get('label') ?? '').trim();
    const appId = String(data.get('appId') ?? '').trim();
    const answer = await ok(
      adminApi.POST('/admin/workspaces/{workspaceId}/keys', {
        params: { path: { workspaceId } },
        body: { ...(kind === 'app' ? { appId } : {}), ...(label ? { label } : {}) },
      }),
    );
    setKind('workspace');
    setCreated(answer);
    list.reload();
    return 'Key created.';
  };

  const revokeKey = (key: ApiKey) => {
    const name = key.label || key.id;
    revoke.runIfConfirmed(`Revoke the key ${name}? Every request made with it (and its tokens) fails from now on.`, async () => {
      await admin.delete(path`/workspaces/${workspaceId}/keys/${key.id}`);
      list.reload();
      return `Key ${name} revoked.`;
    });
  };

  const rows = list.data?.data ?? [];
  return (
    <>
      <PageHeading title="API keys" context={useWorkspaceName()} />
      <Status>{latest(create, revoke)}</Status>
      {created ? (
        <SecretOnce
          title={created.appId ? `New app key (app ${created.appId})` : 'New workspace key'}
          value={created.apiKey}
          onDone={() => setCreated(null)}
        />
      ) : null}
      <ErrorMessage error={revoke.error} />
      <ListState list={list} empty="No key." what="keys" />
      {rows.length > 0 ? (
        <DataTable caption="API keys of the workspace" columns={['Label', 'Kind', 'Created', 'Status']} actions>
          {rows.map((key) => (
            <tr key={key.id}>
              <td data-label="Label">
                {key.label || <span class="muted">(no label)</span>}
                <div class="mono small">{key.id}</div>
              </td>
              <td data-label="Kind">
                {key.kind === 'app' ? (
                  <>
                    app <span class="mono small">{key.appId}</span>
                  </>
                ) : (
                  'workspace'
                )}
              </td>
              <td data-label="Created">{formatDate(key.createdAt)}</td>
              <td data-label="Status">
                {key.revokedAt ? (
                  <>
                    <Badge value="revoked" /> {formatDate(key.revokedAt)}
                  </>
                ) : (
                  <Badge value="active" />
                )}
              </td>
              <td class="actions">
                {key.revokedAt ? null : (
                  <RowButton kind="danger" onClick={() => revokeKey(key)} busy={revoke.busy} label={`Revoke key ${key.label || key.id}`}>
                    Revoke
                  </RowButton>
                )}
              </td>
            </tr>
          ))}
        </DataTable>
      ) : null}

      <CreatePanel id="create-key" title="Create a key" submitLabel="Create key" action={create} create={createKey}>
        <fieldset>
          <legend>Kind</legend>
          <label class="choice">
            <input type="radio" name="kind" value="workspace" checked={kind === 'workspace'} onChange={() => setKind('workspace')} />
            Workspace key (full access)
          </label>
          <label class="choice">
            <input type="radio" name="kind" value="app" checked={kind === 'app'} onChange={() => setKind('app')} />
            App key (bound to one app; mints bearer tokens)
          </label>
        </fieldset>
        {kind === 'app' ? (
          <Field label="App id" hint="The UUID of the app.">
            {(props) => <input {...props} name="appId" required class="mono" pattern="[0-9a-fA-F-]{36}" />}
          </Field>
        ) : null}
        <Field label="Label" hint="Optional: what the key is for.">
          {(props) => <input {...props} name="label" maxLength={100} />}
        </Field>
      </CreatePanel>
    </>
  );
}
