import { useState } from 'preact/hooks';
import { admin, type Page, path, v1 } from '../api.js';
import { Link } from '../router.js';
import type { Install } from '../types.js';
import { Badge, ErrorMessage, Field, ListState, PageHeading, Pager, Status, latest, useAction, usePaged } from '../ui.js';
import { useWorkspaceName } from '../workspace-layout.js';

const TYPES = ['custom', 'marketplace', 'embed', 'link', 'manual'] as const;

export function InstallsPage({ workspaceId }: { workspaceId: string }) {
  const api = v1(workspaceId);
  const list = usePaged((nextToken) => api.get<Page<Install>>('/installs', { limit: 50, nextToken }), [workspaceId]);
  const [type, setType] = useState<(typeof TYPES)[number]>('custom');
  const create = useAction();
  const publish = useAction();

  const publishInstall = (install: Install) =>
    void publish.run(async () => {
      await admin.post(path`/workspaces/${workspaceId}/installs/${install.id}/publish`);
      list.reload();
      return `${install.displayName} published: clients see it from now on.`;
    });

  const submit = async (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    const name = String(data.get('name')).trim();
    const appId = String(data.get('appId') ?? '').trim();
    const draft = data.get('draft') === 'on';
    await create.run(async () => {
      await admin.post(path`/workspaces/${workspaceId}/installs`, {
        type,
        name,
        ...(appId ? { appId } : {}),
        ...(type === 'custom' && draft ? { draft: true } : {}),
      });
      form.reset();
      setType('custom');
      list.reload();
      return `${name} installed${draft ? ' as a draft' : ''}.`;
    });
  };

  const base = `/workspaces/${encodeURIComponent(workspaceId)}/installs`;
  const rows = list.data?.data ?? [];
  const needsApp = type === 'custom' || type === 'marketplace';
  return (
    <>
      <PageHeading title="Installs" context={useWorkspaceName()} />
      <Status message={latest(create, publish)} />
      <ErrorMessage error={publish.error} />
      <ListState list={list} empty="No install." what="installs" />
      {rows.length > 0 ? (
        <table class="data">
          <caption class="visually-hidden">Installs, in sidebar order</caption>
          <thead>
            <tr>
              <th scope="col">Position</th>
              <th scope="col">Name</th>
              <th scope="col">Type</th>
              <th scope="col">Status</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
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
                    <button
                      type="button"
                      onClick={() => publishInstall(install)}
                      disabled={publish.busy}
                      aria-label={`Publish ${install.displayName}`}
                    >
                      Publish
                    </button>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <Pager list={list} label="Installs" />

      <section class="panel" aria-labelledby="create-install">
        <h2 id="create-install">Install an app</h2>
        <ErrorMessage error={create.error} />
        <form class="inline-form" onSubmit={submit}>
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
          {type === 'custom' ? (
            <label class="choice">
              <input type="checkbox" name="draft" />
              Draft (hidden from clients until published)
            </label>
          ) : null}
          <div class="actions">
            <button type="submit" disabled={create.busy}>
              Install
            </button>
          </div>
        </form>
      </section>
    </>
  );
}
