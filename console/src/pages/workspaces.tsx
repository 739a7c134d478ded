import { useState } from 'preact/hooks';
import { admin, type Page, path } from '../api.js';
import { Link } from '../router.js';
import type { CreatedKey, Workspace } from '../types.js';
import {
  ErrorMessage,
  Field,
  ListState,
  PageHeading,
  Pager,
  SecretOnce,
  Status,
  formatDate,
  formatNumber,
  latest,
  useAction,
  usePaged,
  focusFirstField,
} from '../ui.js';

/** A non-negative whole number from a form field, or undefined when left empty. */
function quotaOf(text: FormDataEntryValue | null): number | undefined {
  const value = String(text ?? '').trim();
  return value === '' ? undefined : Number(value);
}

export function WorkspacesPage() {
  const list = usePaged((nextToken) => admin.get<Page<Workspace>>('/workspaces', { limit: 25, nextToken }), []);
  const [created, setCreated] = useState<(CreatedKey & { name: string }) | null>(null);
  const [editing, setEditing] = useState<string | null>(null);
  const create = useAction();
  const edit = useAction();

  const submitCreate = async (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    const name = String(data.get('name')).trim();
    const dailyQuota = quotaOf(data.get('dailyQuota'));
    await create.run(async () => {
      const answer = await admin.post<{ workspaceId: string; apiKeyId: string; apiKey: string }>('/workspaces', {
        name,
        ...(dailyQuota === undefined ? {} : { dailyQuota }),
      });
      form.reset();
      setCreated({ apiKeyId: answer.apiKeyId, apiKey: answer.apiKey, name });
      list.first();
      list.reload();
      return `Workspace ${name} created.`;
    });
  };

  const submitEdit = async (event: Event, workspace: Workspace) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget as HTMLFormElement);
    const name = String(data.get('name')).trim();
    const dailyQuota = quotaOf(data.get('dailyQuota'));
    const ok = await edit.run(async () => {
      await admin.patch(path`/workspaces/${workspace.id}`, {
        ...(name !== workspace.name ? { name } : {}),
        ...(dailyQuota !== undefined && dailyQuota !== workspace.dailyQuota ? { dailyQuota } : {}),
      });
      list.reload();
      return `Workspace ${name} saved.`;
    });
    if (ok) setEditing(null);
  };

  const rows = list.data?.data ?? [];
  return (
    <>
      <PageHeading title="Workspaces" />
      <Status message={latest(create, edit)} />
      {created ? (
        <SecretOnce title={`Workspace API key of ${created.name}`} value={created.apiKey} onDone={() => setCreated(null)} />
      ) : null}
      <ErrorMessage error={edit.error} />
      <ListState list={list} empty="No workspace yet: create one below." what="workspaces" />
      {rows.length > 0 ? (
        <table class="data">
          <caption class="visually-hidden">Workspaces, with today's usage of their daily quota</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Usage today (UTC)</th>
              <th scope="col">Created</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((workspace) =>
              editing === workspace.id ? (
                <tr key={workspace.id}>
                  <td colSpan={4}>
                    <form
                      class="inline-form"
                      onSubmit={(e) => submitEdit(e, workspace)}
                      ref={focusFirstField}
                      aria-label={`Edit workspace ${workspace.name}`}
                    >
                      <Field label="Name">
                        {(props) => <input {...props} name="name" required maxLength={200} defaultValue={workspace.name} />}
                      </Field>
                      <Field label="Daily quota">
                        {(props) => (
                          <input
                            {...props}
                            name="dailyQuota"
                            type="number"
                            min={0}
                            step={1}
                            required
                            defaultValue={String(workspace.dailyQuota)}
                          />
                        )}
                      </Field>
                      <div class="actions">
                        <button type="submit" disabled={edit.busy}>
                          Save
                        </button>
                        <button type="button" class="secondary" onClick={() => setEditing(null)}>
                          Cancel
                        </button>
                      </div>
                    </form>
                  </td>
                </tr>
              ) : (
                <tr key={workspace.id}>
                  <td data-label="Name">
                    <Link href={`/workspaces/${encodeURIComponent(workspace.id)}/clients`}>{workspace.name}</Link>
                    <div class="mono small">{workspace.id}</div>
                  </td>
                  <td data-label="Usage today (UTC)">
                    <Usage used={workspace.usedToday} quota={workspace.dailyQuota} />
                  </td>
                  <td data-label="Created">{formatDate(workspace.createdAt)}</td>
                  <td class="actions">
                    <button
                      type="button"
                      class="secondary"
                      onClick={() => setEditing(workspace.id)}
                      aria-label={`Edit workspace ${workspace.name}`}
                    >
                      Edit
                    </button>
                  </td>
                </tr>
              ),
            )}
          </tbody>
        </table>
      ) : null}
      <Pager list={list} label="Workspaces" />

      <section class="panel" aria-labelledby="create-workspace">
        <h2 id="create-workspace">Create a workspace</h2>
        <ErrorMessage error={create.error} />
        <form class="inline-form" onSubmit={submitCreate}>
          <Field label="Name">{(props) => <input {...props} name="name" required maxLength={200} />}</Field>
          <Field label="Daily quota" hint="Requests per UTC day; empty for the default.">
            {(props) => <input {...props} name="dailyQuota" type="number" min={0} step={1} />}
          </Field>
          <div class="actions">
            <button type="submit" disabled={create.busy}>
              Create workspace
            </button>
          </div>
        </form>
      </section>
    </>
  );
}

function Usage({ used, quota }: { used: number; quota: number }) {
  const share = quota > 0 ? Math.min(1, used / quota) : used > 0 ? 1 : 0;
  const level = share >= 0.9 ? 'high' : share >= 0.7 ? 'medium' : 'low';
  return (
    <div class="usage">
      <span>
        {formatNumber(used)} of {formatNumber(quota)}
      </span>
      <span class={`bar bar-${level}`} aria-hidden="true">
        <span style={{ width: `${used > 0 ? Math.max(2, Math.round(share * 100)) : 0}%` }} />
      </span>
    </div>
  );
}
