import { useState } from 'preact/hooks';
import { admin, path } from '../api.js';
import type { ApiKey, CreatedKey } from '../types.js';
import {
  Badge,
  ErrorMessage,
  Field,
  ListState,
  PageHeading,
  SecretOnce,
  Status,
  confirmed,
  formatDate,
  latest,
  useAction,
  useLoad,
} from '../ui.js';
import { useWorkspaceName } from '../workspace-layout.js';

export function KeysPage({ workspaceId }: { workspaceId: string }) {
  const list = useLoad(() => admin.get<{ data: ApiKey[] }>(path`/workspaces/${workspaceId}/keys`), [workspaceId]);
  const [created, setCreated] = useState<CreatedKey | null>(null);
  const [kind, setKind] = useState<'workspace' | 'app'>('workspace');
  const create = useAction();
  const revoke = useAction();

  const submit = async (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    const label = String(data.get('label') ?? '').trim();
    const appId = String(data.get('appId') ?? '').trim();
    await create.run(async () => {
      const answer = await admin.post<CreatedKey>(path`/workspaces/${workspaceId}/keys`, {
        ...(kind === 'app' ? { appId } : {}),
        ...(label ? { label } : {}),
      });
      form.reset();
      setKind('workspace');
      setCreated(answer);
      list.reload();
      return 'Key created.';
    });
  };

  const revokeKey = (key: ApiKey) => {
    const name = key.label || key.id;
    if (!confirmed(`Revoke the key ${name}? Every request made with it (and its tokens) fails from now on.`)) return;
    void revoke.run(async () => {
      await admin.delete(path`/workspaces/${workspaceId}/keys/${key.id}`);
      list.reload();
      return `Key ${name} revoked.`;
    });
  };

  const rows = list.data?.data ?? [];
  return (
    <>
      <PageHeading title="API keys" context={useWorkspaceName()} />
      <Status message={latest(create, revoke)} />
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
        <table class="data">
          <caption class="visually-hidden">API keys of the workspace</caption>
          <thead>
            <tr>
              <th scope="col">Label</th>
              <th scope="col">Kind</th>
              <th scope="col">Created</th>
              <th scope="col">Status</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
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
                    <button
                      type="button"
                      class="danger"
                      onClick={() => revokeKey(key)}
                      disabled={revoke.busy}
                      aria-label={`Revoke key ${key.label || key.id}`}
                    >
                      Revoke
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}

      <section class="panel" aria-labelledby="create-key">
        <h2 id="create-key">Create a key</h2>
        <ErrorMessage error={create.error} />
        <form class="inline-form" onSubmit={submit}>
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
          <div class="actions">
            <button type="submit" disabled={create.busy}>
              Create key
            </button>
          </div>
        </form>
      </section>
    </>
  );
}
